import { describe, expect, it } from 'vitest';
import { usePretty } from '../../src/logging/logger.js';

describe('pretty log output', () => {
  it('is used on a terminal only when pino-pretty is installed (auto), always when asked, never otherwise', () => {
    expect(usePretty('auto', true, () => true)).toBe(true);
    expect(usePretty('auto', true, () => false)).toBe(false); // production install: JSON, not a crash
    expect(usePretty('auto', false, () => true)).toBe(false);
    expect(usePretty('always', false, () => true)).toBe(true);
    // Asked for, but not installed: one line naming the key, not pino's stack trace at start.
    expect(() => usePretty('always', false, () => false)).toThrow(/^invalid config: log\.pretty: always needs pino-pretty/);
    expect(usePretty('never', true, () => true)).toBe(false);
  });
});
