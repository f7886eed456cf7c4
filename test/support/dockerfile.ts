import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './process.js';

/** One build stage of the Dockerfile: its FROM line and its instructions, continuation lines joined. */
export interface DockerStage {
  from: string;
  name: string | undefined;
  instructions: { keyword: string; args: string }[];
}

/** The stages of the project's Dockerfile, in order (comments and blank lines dropped). */
export function dockerStages(text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')): DockerStage[] {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const stages: DockerStage[] = [];
  for (const line of lines) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (keyword.toUpperCase() === 'FROM') {
      const [, from = '', name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args) ?? [];
      stages.push({ from, name, instructions: [] });
    } else if (stages.length > 0) {
      stages.at(-1)!.instructions.push({ keyword: keyword.toUpperCase(), args });
    }
  }
  return stages;
}

/** The arguments of every instruction with this keyword in a stage. */
export function instructionArgs(stage: DockerStage, keyword: string): string[] {
  return stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
}

/** The ENV assignments of a stage (the final one unless told). */
export function dockerEnv(stage: DockerStage = dockerStages().at(-1)!): Record<string, string> {
  const env: Record<string, string> = {};
  for (const args of instructionArgs(stage, 'ENV')) {
    for (const [, k, v] of args.matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)) env[k!] = v!;
  }
  return env;
}

/** A COPY instruction: the stage it copies from (undefined: the build context), its sources and its destination. */
export interface DockerCopy {
  from: string | undefined;
  sources: string[];
  dest: string;
}

export function dockerCopies(stage: DockerStage): DockerCopy[] {
  return instructionArgs(stage, 'COPY').map((args) => {
    const words = args.split(/\s+/);
    const from = words[0]?.startsWith('--from=') ? words.shift()!.slice('--from='.length) : undefined;
    const dest = words.pop()!;
    return { from, sources: words, dest };
  });
}
