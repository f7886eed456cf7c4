import { describe, expect, it } from 'vitest';
import { fetchAccessToken, fetchPublicKey } from '../../src/verify/index.js';
import { fetchFailure } from '../../src/verify/fetch-failure.js';
import { startReceive, unreachableBase } from '../receiver/support.js';

// undici rejects every network failure with "fetch failed": the words a developer needs ("the
// daemon is not running there") are in its cause.

describe('a borderd that refuses the connection', () => {
  it('is "connection refused to <url>" for the token and the public key requests', async () => {
    const base = await unreachableBase();
    await expect(fetchAccessToken(base, { clientId: 'a', clientSecret: 'b' })).rejects.toThrow(
      `token request failed: connection refused to ${base}/v1/`,
    );
    const err = (await fetchPublicKey(base, { clientId: 'a', clientSecret: 'b' })
      .get()
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toContain(`connection refused to ${base}/`);
    expect(err.message).not.toContain('fetch failed');
  });

  it('is said by borderd receive --tunnel', async () => {
    const base = await unreachableBase();
    const receive = await startReceive(
      ['--tunnel', base, '--client-id', 'a', '--client-secret', 'b', '--forward-to', 'http://127.0.0.1:1/', '--capture-db', ':memory:'],
      /tunnel disconnected: (.*)/,
    );
    expect(receive.url).toContain(`connection refused to ${base}/`);
    expect(receive.output()).not.toContain('fetch failed');
  });

  it('names a host that does not resolve, and keeps any other reason', () => {
    const notFound = new TypeError('fetch failed', {
      cause: Object.assign(new Error('getaddrinfo ENOTFOUND nope.invalid'), { code: 'ENOTFOUND' }),
    });
    expect(fetchFailure(notFound, 'http://nope.invalid:4000/v1/x')).toBe('nope.invalid:4000 does not resolve');
    expect(fetchFailure(new TypeError('fetch failed', { cause: new Error('bad port') }), 'http://h:9/')).toBe('fetch failed: bad port');
    expect(fetchFailure(new SyntaxError('Unexpected token'), 'http://h/')).toBe('Unexpected token');
  });
});
