import { join } from 'node:path';
import type { Benchmark } from './bench-types.js';
import { importCardNetworkKey } from './card-network-key.js';
import { DaemonDatabase, waitUntil } from './daemon-database.js';
import { bearerToken, cli, sampleRss, startDaemon } from './daemon-process.js';
import { load } from './http-load.js';
import { OUTBOX_ENV } from './outbox.js';
import { OutboxScenario } from './outbox-scenario.js';
import { mb, round } from './percentiles.js';
import { writeIdentitiesJsonl } from './test-data.js';

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/**
 * `--soak`: ten minutes of mixed load on one daemon (events delivered to a verifying receiver,
 * identity reads, card-network notifications decrypted), its RSS sampled every 5 s. Flat means the
 * last minute's mean RSS is close to the first minute's after warm-up.
 */
export const soakBenchmark: Benchmark = {
  name: 'soak',
  title: 'Soak: daemon RSS under mixed load (events, identity reads, inbound notifications)',
  async run({ quick, log }) {
    const seconds = quick ? 6 : 600;
    const window = quick ? 2 : 60; // seconds averaged at each end
    const everyMs = quick ? 250 : 5_000;
    const rates = { events: 100, reads: 50, inbound: 20 };
    const daemon = await startDaemon({ env: { ...OUTBOX_ENV, BORDERD_INBOUND_POLL_INTERVAL_MS: '100' } });
    const db = new DaemonDatabase(daemon.dbPath);
    const scenario = await OutboxScenario.start(daemon);
    try {
      await scenario.addWebhooks(1, true);
      const identitiesFile = join(daemon.dataDir, 'identities.jsonl');
      writeIdentitiesJsonl(identitiesFile, 10_000);
      await cli(['identities', 'import', identitiesFile, '--org', scenario.orgId, '--db', daemon.dbPath]);
      const key = await importCardNetworkKey(daemon, scenario.orgId);
      await cli(['inbound', 'map-ica', 'soak', '--org', scenario.orgId, '--db', daemon.dbPath]);
      const token = await key.encrypt({ status: 'ACTIVE' });
      const headers = { authorization: `Bearer ${await bearerToken(daemon)}` };

      log(`soak: ${seconds} s of mixed load`);
      const rss = sampleRss(() => daemon.rss(), everyMs);
      let seq = 0;
      const [, reads, inbound] = await Promise.all([
        scenario.writeEvents({ overallRate: rates.events, durationSeconds: seconds, connections: 4 }),
        load({
          url: `${daemon.url}/v1/identities?name=and&limit=10`,
          headers,
          overallRate: rates.reads,
          durationSeconds: seconds,
          connections: 2,
        }),
        load({
          url: `${daemon.url}/v1/webhooks/card-network`,
          method: 'POST',
          body: () =>
            JSON.stringify({
              eventId: `soak-${seq++}`,
              eventType: 'TOKEN_STATUS_UPDATED',
              eventCreatedDate: '2026-01-01T00:00:00.000Z',
              ica: 'soak',
              data: token,
            }),
          overallRate: rates.inbound,
          durationSeconds: seconds,
          connections: 2,
        }),
      ]);
      const samples = rss.stop();
      if (reads.non2xx > 0 || inbound.non2xx > 0)
        throw new Error(`soak: ${reads.non2xx} reads and ${inbound.non2xx} notifications not answered 2xx`);
      // Nothing dropped: every event delivered, every notification decrypted. Count what was stored,
      // not what the load generator counted, and count again once it is all through: a request in
      // flight when the load stopped may commit after the first count.
      const countEvents = () => db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n;
      let stored = countEvents();
      let delivered = await scenario.waitForDeliveries(stored, 120_000, 'distinctEvents');
      for (let again = countEvents(); again !== stored; again = countEvents()) {
        stored = again;
        delivered = await scenario.waitForDeliveries(stored, 120_000, 'distinctEvents');
      }
      let notifications = 0;
      await waitUntil(
        () => {
          notifications = db.get<{ n: number }>('SELECT count(*) AS n FROM inbound_events')!.n;
          return (db.countBy('inbound_events', 'state').decrypted ?? 0) === notifications;
        },
        'every notification decrypted',
        120_000,
      );
      const perWindow = Math.max(1, Math.round((window * 1000) / everyMs));
      // Skip the first window (warm-up: JIT, caches, pools) and compare the second with the last.
      const early = mean(samples.slice(perWindow, 2 * perWindow));
      const late = mean(samples.slice(-perWindow));
      const peak = daemon.peakRss();
      return {
        rows: [
          {
            metric: 'duration',
            value: seconds,
            unit: 's',
            note: `${rates.events} events/s, ${rates.reads} reads/s, ${rates.inbound} notifications/s offered`,
          },
          {
            metric: 'events stored / delivered',
            value: `${stored} / ${delivered.distinctEvents}`,
            note: 'every event delivered and verified',
          },
          { metric: 'identity reads', value: reads.requests, note: `p99 ${reads.p99Ms} ms` },
          { metric: 'notifications stored = decrypted', value: notifications },
          { metric: `RSS mean, early window`, value: mb(early), unit: 'MB', note: `${window} s after a ${window} s warm-up` },
          { metric: `RSS mean, last ${window} s`, value: mb(late), unit: 'MB' },
          { metric: 'RSS change', value: round(((late - early) / early) * 100, 1), unit: '%', note: 'flat ≈ 0%' },
          { metric: 'daemon peak RSS', value: mb(peak), unit: 'MB', note: 'target < 200 MB' },
        ],
        metrics: {
          durationSeconds: seconds,
          events: stored,
          eventsDelivered: delivered.distinctEvents,
          reads: reads.requests,
          notifications,
          rssSamples: samples.length,
          rssEarlyMb: mb(early),
          rssLateMb: mb(late),
          rssChangeRatio: round((late - early) / early, 3),
          daemonPeakRssMb: mb(peak),
        },
      };
    } finally {
      await scenario.stop();
      db.close();
      await daemon.stop();
    }
  },
};
