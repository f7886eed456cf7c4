/**
 * Waits `ms`, or less when `signal` aborts (the tunnel's stop). Whichever ends the wait removes the
 * other: a tunnel sleeps before every reconnect and forward retry on one long-lived stop signal,
 * and an abort listener left behind by each wait would pile up (Node warns with
 * MaxListenersExceededWarning).
 *
 * @module receiver/abortable-sleep
 */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
