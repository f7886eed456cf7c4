import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { procStatusBytes } from './daemon-process.js';

export interface ChildServer {
  url: string;
  pid: number;
  peakRss(): number;
  stop(): Promise<void>;
}

/** Starts one of the compiled bench/ servers (dist/bench/<script>.js) and waits for its `listening on URL` line. */
export function startChildServer(script: string, args: string[] = []): Promise<ChildServer> {
  return startListening([fileURLToPath(new URL(`./${script}.js`, import.meta.url)), ...args], script);
}

/** Starts `node <argv>` and waits for a `listening on http://…` line on stdout. */
export function startListening(argv: string[], label: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const proc = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let stopping = false;
  const exited = new Promise<void>((resolve) =>
    proc.on('exit', (code, signal) => {
      if (!stopping) process.stderr.write(`bench: ${label} ${proc.pid} exited on its own (${code ?? signal}):\n${out.slice(-4096)}\n`);
      resolve();
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not start: ${out}`)), 20_000);
    proc.stderr.on('data', (d: Buffer) => (out.length < 8192 ? (out += d.toString()) : undefined));
    proc.stdout.on('data', (d: Buffer) => {
      if (out.length < 8192) out += d.toString();
      const m = /listening on (http:\/\/[^\s,]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1]!,
          pid: proc.pid!,
          peakRss: () => procStatusBytes(proc.pid!, 'VmHWM'),
          stop: async () => {
            stopping = true;
            if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${label} exited: ${out}`));
    });
  });
}
