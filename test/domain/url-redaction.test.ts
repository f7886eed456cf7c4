import { describe, expect, it } from 'vitest';
import { redactedUrl } from '../../src/domain/url-redaction.js';

describe('redactedUrl', () => {
  it('masks the userinfo password and every secret-like query parameter, and keeps the rest', () => {
    expect(redactedUrl('postgres://borderd:pw-1@db.internal:5432/borderd?sslmode=require&password=pw-2&sslpassword=pw-3')).toBe(
      'postgres://borderd:***@db.internal:5432/borderd?sslmode=require&password=***&sslpassword=***',
    );
    const masked = redactedUrl(
      'https://collector.example.com/v1/traces?api_key=k1&access_token=t1&client_secret=s1&X-Amz-Signature=g1&auth=a1&region=eu',
    );
    expect(masked).toBe(
      'https://collector.example.com/v1/traces?api_key=***&access_token=***&client_secret=***&X-Amz-Signature=***&auth=***&region=eu',
    );
  });

  it('gives back a URL with nothing secret as it was written', () => {
    expect(redactedUrl('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
    expect(redactedUrl('postgres://borderd@db/borderd?sslmode=verify-full')).toBe('postgres://borderd@db/borderd?sslmode=verify-full');
  });

  it('never echoes what does not parse', () => {
    expect(redactedUrl('postgres://u:p@[broken/db?password=x')).toBe('(unparsable URL)');
  });
});
