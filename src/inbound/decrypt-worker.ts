/**
 * Runs decryption in `borderd serve`: woken after an intake commit (ctx.signals), and on a poll,
 * because CLI commands in other processes (retry, key import, ica mapping) write the same file.
 * One pass at a time; stop() waits for the pass in flight, so SIGTERM leaves no half-recorded attempt.
 *
 * The intake emits its signal from the request handler, before the 200 is written, and a listener
 * runs inside that emit (src/signals.ts). The signal therefore only schedules a pass (setImmediate,
 * after the response has been written in this turn of the event loop), so the answer to the card
 * network never waits on an RSA unwrap.
 *
 * @module inbound/decrypt-worker
 */
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { inSpan } from '../tracing/spans.js';
import type { AppContext } from '../context.js';
import type { Worker } from '../worker.js';
import { decryptDue } from './decryption.js';
import { matchPendingIcas } from './ica-mapping.js';

export function createDecryptWorker(ctx: AppContext): Worker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let scheduled: NodeJS.Immediate | undefined;
  let unlisten: (() => void) | undefined;

  const pass = async (): Promise<void> => {
    do {
      again = false;
      try {
        await matchPendingIcas(ctx);
        const counts = await inSpan('inbound decryption', { parent: ROOT_CONTEXT }, async (span) => {
          const counts = await decryptDue(ctx);
          for (const [outcome, n] of Object.entries(counts)) span?.setAttribute(`borderd.${outcome}`, n);
          return counts;
        });
        ctx.signals.inboundPassed.emit(counts);
        // A full batch means more rows may be due right now.
        if (Object.values(counts).reduce((a, b) => a + b, 0) >= ctx.config.inbound.batchSize) again = true;
      } catch (err) {
        ctx.log.error({ err }, 'inbound decryption pass failed');
      }
    } while (again && !stopped);
  };

  const wake = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass().finally(() => {
      running = undefined;
    });
  };

  /** The signal's listener: never runs a pass inside the emitter's call stack. */
  const wakeSoon = (): void => {
    if (stopped || scheduled) return;
    scheduled = setImmediate(() => {
      scheduled = undefined;
      wake();
    });
  };

  return {
    name: 'inbound-decrypt',
    start() {
      unlisten = ctx.signals.inbound.listen(wakeSoon);
      timer = setInterval(wake, ctx.config.inbound.pollIntervalMs);
      timer.unref();
      wake();
    },
    async stop() {
      stopped = true;
      unlisten?.();
      if (timer) clearInterval(timer);
      if (scheduled) clearImmediate(scheduled);
      await running;
    },
  };
}
