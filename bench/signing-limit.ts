import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { SIGNING_KEY_BITS } from '../src/delivery/signing-keys.js';

/** A body the size of a real transaction event (the signature cost hardly depends on it). */
export const SAMPLE_EVENT_BODY = JSON.stringify({
  id: 'evt_01JBENCH0000000000000000000',
  type: 'transaction.status_changed',
  createdAt: '2026-01-01T00:00:00.000Z',
  data: {
    transactionId: 'txn_01JBENCH0000000000000000000',
    previousStatus: 'Submitted',
    status: 'Completed',
    amount: '1234.56',
    currency: 'USDC',
    provider: 'pfi-1',
    updatedAt: '2026-01-01T00:00:00.000Z',
  },
});

/**
 * RSA-SHA256 signatures per second of one core: node:crypto, one key, one thread, back to back.
 * `perSecond` divides by the CPU time the loop used, not the wall time: on a shared machine the
 * thread is sometimes descheduled, and a wall-clock rate then understates what a core can sign
 * (by as much as half), which would flatter every ratio to it. `wallPerSecond` is the clock's
 * figure, printed next to it.
 */
export function measureSigningRate(
  key: KeyObject,
  seconds: number,
  body: string = SAMPLE_EVENT_BODY,
): { perSecond: number; wallPerSecond: number; signatures: number } {
  const bytes = Buffer.from(body);
  for (let i = 0; i < 20; i++) sign('sha256', bytes, key); // warm-up
  let signatures = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  let now = t0;
  while (now < until) {
    for (let i = 0; i < 10; i++) sign('sha256', bytes, key);
    signatures += 10;
    now = performance.now();
  }
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return { perSecond: (signatures * 1000) / cpuMs, wallPerSecond: (signatures * 1000) / (now - t0), signatures };
}

export function makeSigningKey(): KeyObject {
  return generateKeyPairSync('rsa', { modulusLength: SIGNING_KEY_BITS }).privateKey;
}
