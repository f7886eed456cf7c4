import { describe, expect, it } from 'vitest';
import { usePretty } from '../../src/logging/logger.js';

describe('pretty log output', () => {
  it('is used on a terminal only when pino-pretty is installed (auto), always when asked, never otherwise', () => {
    expect(usePretty('auto', true, () => true)).toBe(true);
    expect(usePretty('auto', true, () => false)).toBe(false); // production install: JSON, not a crash
    expect(usePretty('auto', false, () => true)).toBe(false);
    expect(usePretty('always', false, () => false)).toBe(true);
    expect(usePretty('never', true, () => true)).toBe(false);
  });
});
