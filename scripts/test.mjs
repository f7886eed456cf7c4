/**
 * @module scripts/test
 * `npm test`: the whole suite, with the two tools from outside npm it needs. The console's browser
 * tests drive Debian's chromium and the metrics and alert-rule checks run Debian's promtool
 * (prometheus package). Where one is missing, this installs it from Debian's packages (root with
 * apt-get, once: later runs find it); where it cannot, it says in one line what to run, runs every
 * other suite, and ends with the suites it skipped and why. Arguments go to vitest unchanged.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What each tool is for, the Debian package that brings it, and what runs without it. */
const TOOLS = [
  {
    names: ['chromium', 'chromium-browser'],
    pkg: 'chromium',
    why: "the console's browser tests",
    skipped: 'test/console/console.test.ts',
    exclude: 'test/console/**',
  },
  {
    names: ['promtool'],
    pkg: 'prometheus',
    why: 'promtool checks of the metrics and alert rules',
    skipped: 'the promtool checks in test/metrics/metrics.test.ts and test/examples/grafana.test.ts',
  },
];

/** The first executable named `name` on PATH, or undefined. */
function which(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

const missing = () => TOOLS.filter((t) => !t.names.some(which));

let absent = missing();
if (absent.length > 0) {
  const pkgs = absent.map((t) => t.pkg);
  const command = `apt-get install -y ${pkgs.join(' ')}`;
  const root = process.getuid?.() === 0;
  const aptGet = which('apt-get');
  if (root && aptGet) {
    console.log(`npm test: installing ${absent.map((t) => `${t.pkg} (${t.why})`).join(' and ')} from Debian's packages`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const update = spawnSync(aptGet, ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (update.status === 0)
      spawnSync(aptGet, ['install', '-y', '-qq', '--no-install-recommends', ...pkgs], { stdio: ['ignore', 'ignore', 'inherit'], env });
    absent = missing();
    if (absent.length > 0)
      console.log(`npm test: ${command} did not install ${absent.map((t) => t.pkg).join(' and ')}; run it by hand to run every suite`);
  } else {
    const reason = aptGet ? 'not root' : 'no apt-get';
    console.log(
      `npm test: ${absent.map((t) => t.pkg).join(' and ')} missing (${reason}): run \`${aptGet ? 'sudo ' : ''}${command}\` to run every suite`,
    );
  }
}

const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const unavailable = absent.flatMap((t) => (t.exclude ? [t.exclude] : [])).join(',');
const run = spawnSync(process.execPath, [vitest, 'run', ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, BORDERD_TEST_UNAVAILABLE: unavailable },
});
for (const t of absent) console.log(`npm test: skipped ${t.skipped}: ${t.names[0]} is not installed (apt-get install -y ${t.pkg})`);
process.exit(run.status ?? 1);
