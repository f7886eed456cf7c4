import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ChildServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts one of the compiled bench/ servers (dist/bench/<script>.js) and waits for its `listening on URL` line. */
export function startChildServer(script: string, args: string[] = []): Promise<ChildServer> {
  const file = fileURLToPath(new URL(`./${script}.js`, import.meta.url));
  const proc = spawn(process.execPath, [file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start: ${out}`)), 20_000);
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1]!,
          pid: proc.pid!,
          stop: async () => {
            if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
    void exited.then(() => reject(new Error(`${script} exited: ${out}`)));
  });
}
