import { describe, expect, it } from 'vitest';
import { summarizeProfile } from '../../bench/cpu-profile-summary.js';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

describe('summarizeProfile', () => {
  it('adds self time per function and inclusive time up the call chain, counting a recursive frame once', () => {
    // root -> handle -> query (3 samples of 10 ms) and handle -> handle (recursion) -> sign (1 sample of 20 ms)
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2] },
        { id: 2, callFrame: frame('handle', 'file:///x/dist/src/api/route.js', 31), children: [3, 4] },
        { id: 3, callFrame: frame('query', 'file:///x/node_modules/better-sqlite3/lib/methods/wrappers.js', 3) },
        { id: 4, callFrame: frame('handle', 'file:///x/dist/src/api/route.js', 31), children: [5] },
        { id: 5, callFrame: frame('sign', 'node:internal/crypto/sig', 141) },
      ],
      samples: [3, 3, 3, 5],
      timeDeltas: [10_000, 10_000, 10_000, 20_000],
    };
    const text = summarizeProfile(profile, 10);
    expect(text).toMatch(/^total 50 ms/);
    const [self, inclusive] = text.split('inclusive time');
    expect(self).toMatch(/30 ms\s+60\.0%\s+query better-sqlite3\/lib\/methods\/wrappers\.js:4/);
    expect(self).toMatch(/20 ms\s+40\.0%\s+sign node:internal\/crypto\/sig:142/);
    expect(inclusive).toMatch(/50 ms\s+100\.0%\s+handle dist\/src\/api\/route\.js:32/);
    expect(inclusive).toMatch(/50 ms\s+100\.0%\s+\(root\)/);
  });
});
