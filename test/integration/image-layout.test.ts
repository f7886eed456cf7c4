import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/context.js';
import { dockerCopies, dockerEnv, dockerStages, instructionArgs, type DockerStage } from '../support/dockerfile.js';
import { ROOT } from '../support/process.js';
import { copyProductionModules } from '../support/production-modules.js';

/**
 * The Docker image without a Docker engine: the Dockerfile's stages replayed on this machine. The
 * build stage gets exactly the files its COPY lines name and runs its build; the final stage gets
 * exactly what its COPY lines name, with node_modules cut down to the production dependencies as
 * `npm prune --omit=dev` leaves them. The daemon then starts from that tree through the image's
 * entrypoint with the image's environment and nothing else, answers the HEALTHCHECK, and a CLI
 * command runs as README's `docker run … borderd clients list` runs it, in the image's working
 * directory with /app not writable (the image's files belong to root, its commands run as `node`).
 * So a file the image lacks, a development dependency imported at run time, an image variable the
 * code does not read or a default path that lands in /app fails here. The base image, apt and the
 * `node` user themselves are what this cannot check.
 */

const WORKDIR = '/app';

/** Where a path of the image lands in the replay: WORKDIR stands for `root`. */
function inImage(root: string, path: string): string {
  if (path === WORKDIR) return root;
  const rel = path.startsWith(`${WORKDIR}/`) ? path.slice(WORKDIR.length + 1) : path.replace(/^\.\//, '');
  return join(root, rel);
}

/** Replays a stage's COPY lines from the build context (or another stage's replay) into `root`. */
function replayCopies(
  stage: DockerStage,
  root: string,
  stageRoots: Record<string, string>,
  skip: (dest: string) => boolean = () => false,
): void {
  for (const copy of dockerCopies(stage)) {
    for (const source of copy.sources) {
      const from = copy.from === undefined ? join(ROOT, source) : inImage(stageRoots[copy.from]!, source);
      const dest = copy.dest.endsWith('/') ? join(inImage(root, copy.dest), basename(source)) : inImage(root, copy.dest);
      if (skip(dest)) continue;
      mkdirSync(dirname(dest), { recursive: true });
      cpSync(from, dest, { recursive: true });
    }
  }
}

/** Takes write permission from every directory under `root` (the image's root-owned /app); the returned function gives it back. */
function readOnlyTree(root: string): () => void {
  const dirs: string[] = [];
  const walk = (dir: string) => {
    dirs.push(dir);
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path, { throwIfNoEntry: false })?.isDirectory() && !name.startsWith('node_modules')) walk(path);
    }
  };
  walk(root);
  for (const dir of dirs) chmodSync(dir, 0o555);
  return () => {
    for (const dir of dirs) chmodSync(dir, 0o755);
  };
}

const started: { kill(): void }[] = [];
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const p of started.splice(0)) p.kill();
  for (const c of cleanups.splice(0)) c();
});

/** Waits until the process prints `marker` (stdout or stderr), then stops it with SIGTERM and expects exit 0. */
async function untilListening(child: ReturnType<typeof spawn>, marker: string): Promise<void> {
  started.push(child);
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`never printed "${marker}":\n${out}`)), 30_000);
    const check = (d: Buffer) => {
      out += d.toString();
      if (!out.includes(marker)) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    void exited.then(() => (clearTimeout(timer), reject(new Error(`exited before "${marker}":\n${out}`))));
  });
  child.kill('SIGTERM');
  expect(await exited, out).toBe(0);
}

describe('the Docker image, replayed without an engine', () => {
  it('builds from the files it copies and serves, answers its healthcheck and runs CLI commands with production dependencies only', async () => {
    const stages = dockerStages();
    const build = stages.find((s) => s.name === 'build')!;
    const final = stages.at(-1)!;
    expect(build, 'a stage named build').toBeDefined();
    expect(instructionArgs(build, 'WORKDIR')).toEqual([WORKDIR]);
    // Both work in /app: `--config config/production.yaml` finds the image's copy; files are written to the volume.
    const volume = (JSON.parse(instructionArgs(final, 'VOLUME')[0]!) as string[])[0]!;
    expect(instructionArgs(final, 'WORKDIR')).toEqual([WORKDIR]);
    const buildRuns = instructionArgs(build, 'RUN').join('\n');
    // What the replay does in their place: node_modules stands for `npm ci`, then the same build and prune.
    expect(buildRuns).toMatch(/npm ci/);
    expect(buildRuns).toMatch(/npm run build && npm prune --omit=dev/);

    const buildRoot = tempDir('borderd-image-build-');
    replayCopies(build, buildRoot, {});
    symlinkSync(join(ROOT, 'node_modules'), join(buildRoot, 'node_modules'));
    const built = spawnSync('npm', ['run', 'build'], { cwd: buildRoot, encoding: 'utf8', timeout: 180_000 });
    expect(built.status, `${built.stdout}\n${built.stderr}`).toBe(0);

    const appRoot = join(tempDir('borderd-image-'), 'app');
    const modules = join(appRoot, 'node_modules');
    replayCopies(final, appRoot, { build: buildRoot }, (dest) => dest === modules);
    const production = copyProductionModules(appRoot);
    expect(production).toContain('node_modules/better-sqlite3');
    expect(production).not.toContain('node_modules/pino-pretty');
    expect(production).not.toContain('node_modules/typescript');

    // The entrypoint names the image's paths; here WORKDIR is appRoot.
    const entrypoint = JSON.parse(instructionArgs(final, 'ENTRYPOINT')[0]!) as string[];
    const cmd = JSON.parse(instructionArgs(final, 'CMD')[0]!) as string[];
    const script = join(appRoot, 'entrypoint-replayed.sh');
    writeFileSync(script, readFileSync(inImage(appRoot, entrypoint[0]!), 'utf8').replaceAll(`${WORKDIR}/`, `${appRoot}/`));

    const dataDir = tempDir('borderd-image-data-');
    // The image's environment and nothing else; the ports and the volume become loopback, free ports and a temporary directory.
    const env = {
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: dataDir,
      ...dockerEnv(final),
      BORDERD_HOST: '127.0.0.1',
      BORDERD_PORT: '0',
      BORDERD_METRICS_HOST: '127.0.0.1',
      BORDERD_METRICS_PORT: '0',
      BORDERD_DB: join(dataDir, 'borderd.db'),
    };
    // Commands run where the image's last WORKDIR says; /app is not theirs to write.
    const workdir = instructionArgs(final, 'WORKDIR').at(-1)!;
    const cwd = workdir === volume ? dataDir : inImage(appRoot, workdir);
    if (process.getuid?.() !== 0) cleanups.push(readOnlyTree(appRoot));
    const daemon = spawn('sh', [script, ...cmd], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    started.push(daemon);
    let out = '';
    daemon.stdout.on('data', (d: Buffer) => (out += d.toString()));
    daemon.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => daemon.on('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the replayed image did not start:\n${out}`)), 30_000);
      // On stderr: the image's log on stdout is JSON lines.
      const check = () => {
        const m = /borderd listening on (http:\/\/[^\s]+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      daemon.stdout.on('data', check);
      daemon.stderr.on('data', check);
      void exited.then(() => reject(new Error(`the replayed image exited:\n${out}`)));
    });
    expect(out).not.toMatch(/"level":50|Error:/);

    const health = /^CMD (.*)$/.exec(instructionArgs(final, 'HEALTHCHECK')[0]!.replace(/^(--\S+\s+)+/, ''))![1]!;
    const port = new URL(url).port;
    const check = spawnSync('sh', ['-c', health], { env: { ...env, BORDERD_PORT: port }, encoding: 'utf8', timeout: 10_000 });
    expect(check.status, check.stderr).toBe(0);
    // BORDERD_SERVER_PORT wins over the short BORDERD_PORT in the configuration, and so in the check.
    const byLongName = spawnSync('sh', ['-c', health], {
      env: { ...env, BORDERD_PORT: '1', BORDERD_SERVER_PORT: port },
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(byLongName.status, byLongName.stderr).toBe(0);

    // The image's production rules: no first-start organization, so no secret in the container's log.
    expect(out).not.toMatch(/clientSecret|bsk_/);
    expect(out).toMatch(/no organization yet/);
    // `docker run --rm -v borderd-data:/data borderd …`: the entrypoint, the image's environment, the volume's database.
    const cli = (...args: string[]) => {
      const r = spawnSync('sh', [script, ...args, '--json'], { cwd, env, encoding: 'utf8', timeout: 30_000 });
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return JSON.parse(r.stdout) as Record<string, string>;
    };
    const org = cli('orgs', 'create', '--name', 'Acme');
    const client = cli('clients', 'create', '--org', org.id!);
    expect(JSON.stringify(cli('clients', 'list'))).toContain(client.id!);
    // And its webhook rules: an http target on a loopback address is refused.
    const token = (await (
      await fetch(`${url}/v1/auth/m2m/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId: client.id, clientSecret: client.clientSecret }),
      })
    ).json()) as { accessToken: string };
    const refused = await fetch(`${url}/v1/notifications/webhooks/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token.accessToken}` },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hook' }),
    });
    expect(refused.status).toBe(400);

    daemon.kill('SIGTERM');
    expect(await exited).toBe(0);

    // `docker run … borderd receive …`: its default capture log (relative to /app) is refused in one
    // line naming the option; the README's --capture-db in the volume works.
    const publicKey = join(dataDir, 'public.pem');
    writeFileSync(publicKey, generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }));
    const receive = ['receive', '--forward-to', 'http://127.0.0.1:9/hook', '--public-key', publicKey, '--host', '127.0.0.1', '--port', '0'];
    if (process.getuid?.() !== 0) {
      const refused = spawnSync('sh', [script, ...receive], { cwd, env, encoding: 'utf8', timeout: 30_000 });
      expect([refused.status, refused.stderr]).toEqual([
        2,
        expect.stringMatching(/^borderd: cannot open database \.\/borderd-receive\.db: .*\(--capture-db\)\n$/),
      ]);
    }
    await untilListening(
      spawn('sh', [script, ...receive, '--capture-db', join(dataDir, 'borderd-receive.db')], {
        cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
      'forwarding to',
    );
    expect(existsSync(join(dataDir, 'borderd-receive.db'))).toBe(true);
    // With no arguments at all (CMD cleared by `docker run --entrypoint …`) the entrypoint serves.
    await untilListening(spawn('sh', [script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }), 'borderd listening on');
  }, 240_000);
});
