import { describe, expect, it } from 'vitest';
import { illFormedTextPath, maySpellSurrogate } from '../../src/domain/well-formed-text.js';

describe('illFormedTextPath', () => {
  it('names the first string or key holding a lone surrogate, and passes pairs', () => {
    expect(illFormedTextPath(JSON.parse('{"url":"http://h/\\ud800x"}'), 'body')).toBe('body.url');
    expect(illFormedTextPath(JSON.parse('{"a":[1,{"b":"ok"},{"c":"\\udfff"}]}'), 'body')).toBe('body.a.2.c');
    expect(illFormedTextPath(JSON.parse('{"\\ud800":1}'), 'body')).toBe('body');
    expect(illFormedTextPath(JSON.parse('{"emoji":"\\ud83d\\ude00","n":null,"t":true}'), 'body')).toBeUndefined();
    expect(illFormedTextPath(undefined, 'body')).toBeUndefined();
  });

  it('walks a deeply nested value without overflowing the stack', () => {
    const deep = JSON.parse('['.repeat(200_000) + '"\\ud800"' + ']'.repeat(200_000));
    expect(illFormedTextPath(deep, 'body')).toBe('body' + '.0'.repeat(200_000));
  });
});

describe('maySpellSurrogate', () => {
  it('finds the escapes of D800 to DFFF in raw JSON, in either case, and nothing else', () => {
    for (const yes of ['{"a":"\\ud800"}', '{"a":"x\\uDFFF"}', '["\\uD83D\\uDE00"]', '"\\udBff"'])
      expect(maySpellSurrogate(Buffer.from(yes)), yes).toBe(true);
    for (const no of ['{"a":"\\u00e9"}', '{"a":"\\ud7ff"}', '{"a":"\\ue000"}', '{"a":"d800"}', '{"a":"\\u"}', '{"a":"\u{1F600}"}'])
      expect(maySpellSurrogate(Buffer.from(no)), no).toBe(false);
  });
});
