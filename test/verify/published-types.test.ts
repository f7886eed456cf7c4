import { execFile, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/context.js';
import { ROOT } from '../support/process.js';
import { copyProductionModules } from '../support/production-modules.js';

/**
 * The published declarations of borderd/verify, compiled the way an integrator's project would:
 * skipLibCheck off, strict, NodeNext. The built .d.ts files are copied out of the project so
 * nothing in its node_modules (express's types above all) is reachable unless the test links it.
 */
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const BUILT = join(ROOT, 'dist', 'src', 'verify');

function consumerProject(files: Record<string, string>, nodeModules: 'types-node-only' | 'all'): string {
  const dir = tempDir('borderd-consumer-');
  mkdirSync(join(dir, 'verify'));
  for (const f of readdirSync(BUILT).filter((f) => f.endsWith('.d.ts'))) cpSync(join(BUILT, f), join(dir, 'verify', f));
  if (nodeModules === 'all') symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  else {
    // An integrator has @types/node (the library works on node:crypto KeyObjects), and nothing else.
    mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(dir, 'node_modules', '@types', 'node'), 'dir');
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        types: ['node'],
      },
      include: ['*.ts'],
    }),
  );
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/**
 * The compiler, run without blocking the test worker: a compile longer than a minute on a busy
 * machine would otherwise keep the worker from answering vitest (its calls time out at 60 s).
 */
function compile(dir: string, project: string, timeout: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSC, '-p', project],
      { cwd: dir, encoding: 'utf8', timeout, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

function tsc(dir: string): Promise<{ code: number | null; output: string }> {
  return compile(dir, join(dir, 'tsconfig.json'), 60_000);
}

const CONSUMER = `
import { createServer } from 'node:http';
import {
  createWebhookMiddleware,
  verifySignature,
  COMPLIANCE_RESULTS,
  VIRTUAL_ACCOUNT_STATUSES,
  type AnyWebhookEvent,
  type ComplianceCheckEventData,
  type VirtualAccountEventData,
} from './verify/index.js';

const middleware = createWebhookMiddleware({ publicKey: process.env.KEY ?? '' });
// Works on node's own request and response too: the types are structural.
createServer((req, res) => middleware(req, res, (err) => res.end(err ? 'error' : 'ok')));

export const ok: VirtualAccountEventData['status'] = 'CreationFailed';
// @ts-expect-error the daemon never emits 'Active'
export const notEmitted: VirtualAccountEventData['status'] = 'Active';
// @ts-expect-error compliance statuses are Pending | InProgress | Completed
export const badStatus: ComplianceCheckEventData['status'] = 'Done';
// @ts-expect-error results are Approved | Rejected | null
export const badResult: ComplianceCheckEventData['result'] = 'Passed';

export function describeEvent(e: AnyWebhookEvent): string {
  if (e.type === 'IdentityComplianceCheck_Completed') {
    const result: 'Approved' | 'Rejected' | null = e.data.result;
    return String(result);
  }
  if (e.type === 'VirtualAccount_Created') {
    const status: 'Created' | 'CreationFailed' = e.data.status;
    return status;
  }
  return e.type;
}
export const lists = [COMPLIANCE_RESULTS.length, VIRTUAL_ACCOUNT_STATUSES.length];
export const checked: boolean = verifySignature('{}', undefined, process.env.KEY ?? '');
`;

describe('published types of borderd/verify', () => {
  it('compile for a consumer without @types/express (skipLibCheck off) and carry the exact status unions', async () => {
    const dir = consumerProject({ 'consumer.ts': CONSUMER }, 'types-node-only');
    const { code, output } = await tsc(dir);
    expect(output).toBe('');
    expect(code).toBe(0);
  }, 120_000);

  it('give express users a typed req.webhookEvent', async () => {
    const dir = consumerProject(
      {
        'app.ts': `
import express from 'express';
import { createWebhookMiddleware } from './verify/index.js';
const app = express();
app.post('/webhooks', createWebhookMiddleware({ publicKey: 'pem' }), (req, res) => {
  const event = req.webhookEvent!;
  if (event.type === 'Transaction_Updated') {
    const status: 'Completed' | string = event.data.status;
    res.json({ status });
  } else res.sendStatus(200);
});
app.post('/raw', express.raw({ type: 'application/json' }), createWebhookMiddleware({ publicKey: 'pem' }), (_req, res) => {
  res.sendStatus(204);
});
export default app;
`,
      },
      'all',
    );
    const { code, output } = await tsc(dir);
    expect(output).toBe('');
    expect(code).toBe(0);
  }, 120_000);
});

describe('published types of the root export (borderd)', () => {
  it('compile for a strict consumer (skipLibCheck off) that installed borderd and nothing else but @types/node', async () => {
    const res = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(res.status, res.stderr).toBe(0);
    const project = tempDir('borderd-consumer-');
    const installed = join(project, 'node_modules', 'borderd');
    for (const { path } of (JSON.parse(res.stdout) as { files: { path: string }[] }[])[0]!.files) {
      mkdirSync(dirname(join(installed, path)), { recursive: true });
      cpSync(join(ROOT, path), join(installed, path));
    }
    // What `npm install borderd` brings along, and the consumer's own @types/node.
    copyProductionModules(project);
    for (const own of ['@types/node', 'undici-types'])
      cpSync(join(ROOT, 'node_modules', own), join(project, 'node_modules', own), { recursive: true, force: false });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
    writeFileSync(
      join(project, 'main.ts'),
      [
        "import { createContext, loadConfig, startDaemon, type AppContext, type Config } from 'borderd';",
        "import { verifyWebhook, type AnyWebhookEvent } from 'borderd/verify';",
        'export async function embed(): Promise<AppContext> {',
        '  const config: Config = loadConfig({ env: {}, flags: {} });',
        '  const ctx = await createContext(config);',
        '  const daemon = await startDaemon(ctx);',
        '  await daemon.close();',
        '  return ctx;',
        '}',
        'export const check = (body: Buffer, headers: Record<string, string>, key: string): AnyWebhookEvent => verifyWebhook(body, headers, key);',
      ].join('\n'),
    );
    for (const moduleResolution of ['nodenext', 'bundler']) {
      const options = {
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        target: 'es2022',
        module: moduleResolution === 'bundler' ? 'esnext' : 'nodenext',
        moduleResolution,
        types: ['node'],
      };
      writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['main.ts'] }));
      const tsc = await compile(project, project, 120_000);
      expect({ moduleResolution, out: tsc.output }).toEqual({ moduleResolution, out: '' });
    }
  }, 180_000);
});
