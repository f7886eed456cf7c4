import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressReporter } from '../../src/cli/import.js';

class FakeTerminal extends Writable {
  text = '';
  constructor(readonly isTTY: boolean) {
    super();
  }
  columns = 120;
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.text += chunk.toString('utf8');
    cb();
  }
}

const stream = (tty: boolean) => new FakeTerminal(tty) as unknown as NodeJS.WriteStream & FakeTerminal;

describe('import progress bar', () => {
  it('draws on a terminal and ends at 100% of the records', () => {
    const out = stream(true);
    const p = progressReporter('identities', out);
    p.update(500, 1203);
    p.update(1203, 1203);
    p.stop();
    expect(out.text).toContain('identities [');
    expect(out.text).toContain('100% 1203/1203');
  });

  it('writes nothing when the stream is not a terminal', () => {
    const out = stream(false);
    const p = progressReporter('transactions', out);
    p.update(1, 1);
    p.stop();
    expect(out.text).toBe('');
  });
});
