/**
 * @module test/support/no-processes-or-sockets
 * The fast loop's contract (`npm run test:unit`, vitest.unit.config.ts): a suite there needs no child
 * process, no socket and no server. This setup file makes each of them fail the test that reaches for
 * it, naming what it did, so a suite that starts needing one leaves the list instead of slowing it
 * or hanging on a machine without the tool. SQLite files, timers and worker threads stay allowed.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const refuse = (what: string) =>
  function refused(): never {
    throw new Error(`${what} in the fast loop: this suite belongs in \`npm test\` only (remove it from vitest.unit.config.ts)`);
  };

const launchers = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
for (const name of launchers) (childProcess as unknown as Record<string, unknown>)[name] = refuse(`child_process.${name}`);
// Every server (http, https, express) listens through net.Server; every client (fetch, http.request, pg) connects through net.Socket.
net.Server.prototype.listen = refuse('a listening socket');
net.Socket.prototype.connect = refuse('a socket connection');
// Named imports (`import { spawn } from 'node:child_process'`) read the patched functions too.
syncBuiltinESMExports();
