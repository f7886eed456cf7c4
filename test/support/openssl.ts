import { execFileSync } from 'node:child_process';

/** Whether the `openssl` command is on this machine: the tests that check borderd against it skip without it. */
export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
