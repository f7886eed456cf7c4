/**
 * Prints where a V8 CPU profile spent its time: the top functions by self time and by inclusive
 * time (a function's own samples plus its callees'). For the daemon's profiles written by
 * `npm run bench -- --cpu-prof DIR`: node dist/bench/cpu-profile-summary.js DIR/CPU.….cpuprofile [N]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function summarizeProfile(profile: Profile, top: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfById = new Map<number, number>();
  profile.samples.forEach((id, i) => selfById.set(id, (selfById.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const label = (n: ProfileNode) => {
    const url = n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(dist\/)/, '$1');
    return `${n.callFrame.functionName || '(anonymous)'} ${url}${url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
  };
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  for (const [id, t] of selfById) {
    total += t;
    const key = label(byId.get(id)!);
    self.set(key, (self.get(key) ?? 0) + t);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = label(byId.get(cur)!);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + t);
    }
  }
  const list = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, t]) => `${(t / 1000).toFixed(0).padStart(8)} ms ${((t / total) * 100).toFixed(1).padStart(5)}%  ${k}`)
      .join('\n');
  return `total ${(total / 1000).toFixed(0)} ms\n\nself time\n${list(self)}\n\ninclusive time\n${list(inclusive)}\n`;
}

if (process.argv[1]?.endsWith('cpu-profile-summary.js')) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node dist/bench/cpu-profile-summary.js FILE.cpuprofile [top]\n');
    process.exit(2);
  }
  process.stdout.write(summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(process.argv[3] ?? 30)));
}
