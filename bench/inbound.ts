import { performance } from 'node:perf_hooks';
import { compactDecrypt } from 'jose';
import type { Benchmark } from './bench-types.js';
import { importCardNetworkKey } from './card-network-key.js';
import { DaemonDatabase, waitUntil } from './daemon-database.js';
import { cli, startDaemon } from './daemon-process.js';
import { load } from './http-load.js';
import { mb, round } from './percentiles.js';

const ICA = 'bench-ica';

/**
 * Benchmark 4: card-network notifications. Phase 1 posts N notifications whose ica maps to no
 * organization yet, so intake (validate, store durably, answer 200) is measured alone. Phase 2 maps
 * the ica: every stored notification is queued at once and the daemon's decryption worker is timed
 * until all are decrypted. Raw jose compactDecrypt on the same tokens, in this process, is the
 * comparison.
 */
export const inboundBenchmark: Benchmark = {
  name: 'inbound',
  title: 'Inbound: card-network notifications accepted/s and decryptions/s vs raw jose',
  async run({ quick, log }) {
    const n = quick ? 300 : 20_000;
    const distinctTokens = quick ? 20 : 200;
    const daemon = await startDaemon({ env: { BORDERD_INBOUND_POLL_INTERVAL_MS: '50', BORDERD_INBOUND_DECRYPT_RETRY_SECONDS: '[]' } });
    const db = new DaemonDatabase(daemon.dbPath);
    try {
      const [org] = await cli<{ id: string }[]>(['orgs', 'list', '--db', daemon.dbPath]);
      const key = await importCardNetworkKey(daemon, org!.id);
      const privateKey = key.privateKey;

      const tokens: string[] = [];
      for (let i = 0; i < distinctTokens; i++) {
        const payload = {
          tokenUniqueReference: `DWSPMC0000000000000000000000000000${String(i).padStart(6, '0')}`,
          status: 'ACTIVE',
          panSuffix: String(1000 + i),
          reason: 'bench',
        };
        tokens.push(await key.encrypt(payload));
      }

      let seq = 0;
      const body = () => {
        const i = seq++;
        return JSON.stringify({
          eventId: `bench-${i}`,
          eventType: 'TOKEN_STATUS_UPDATED',
          eventCreatedDate: '2026-01-01T00:00:00.000Z',
          ica: ICA,
          data: tokens[i % tokens.length],
        });
      };
      log(`inbound: posting ${n} notifications`);
      const intake = await load({ url: `${daemon.url}/v1/webhooks/card-network`, method: 'POST', body, amount: n, connections: 10 });
      if (intake.non2xx > 0 || intake.errors > 0) throw new Error(`intake: ${intake.non2xx} non-2xx answers, ${intake.errors} errors`);
      const stored = db.countBy('inbound_events', 'state');
      if ((stored.unmatched ?? 0) !== intake.requests)
        throw new Error(`intake answered ${intake.requests} times 200 but stored ${JSON.stringify(stored)}`);

      // Phase 2: map the ica; the daemon queues every waiting notification and decrypts them.
      const t0 = performance.now();
      const mapped = await fetch(`${daemon.url}/admin/v1/inbound/icas/${ICA}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${daemon.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ organizationId: org!.id }),
      });
      if (mapped.status !== 200) throw new Error(`map ica: ${mapped.status} ${await mapped.text()}`);
      const done = () => {
        const c = db.countBy('inbound_events', 'state');
        if ((c.failed ?? 0) > 0) throw new Error(`${c.failed} notifications failed to decrypt`);
        return (c.decrypted ?? 0) === n;
      };
      await waitUntil(done, `${n} decryptions`, quick ? 30_000 : 600_000);
      const daemonSeconds = (performance.now() - t0) / 1000;
      const decryptionsPerSecond = n / daemonSeconds;
      const peakRss = daemon.peakRss();

      // The same tokens through raw jose in this process, one after another.
      const joseCount = quick ? 200 : 5_000;
      const options = { keyManagementAlgorithms: ['RSA-OAEP-256'], contentEncryptionAlgorithms: ['A256GCM'] };
      for (let i = 0; i < 10; i++) await compactDecrypt(tokens[i % tokens.length]!, privateKey, options);
      const j0 = performance.now();
      for (let i = 0; i < joseCount; i++) await compactDecrypt(tokens[i % tokens.length]!, privateKey, options);
      const josePerSecond = joseCount / ((performance.now() - j0) / 1000);
      const ratio = decryptionsPerSecond / josePerSecond;
      return {
        rows: [
          { metric: 'notifications accepted', value: intake.requests, note: 'each stored before its 200 (checked in the database)' },
          {
            metric: 'accepted/s',
            value: round(intake.requestsPerSecond, 0),
            unit: '/s',
            note: `p50 ${intake.p50Ms} ms, p99 ${intake.p99Ms} ms, 10 connections`,
          },
          {
            metric: 'daemon decryptions/s',
            value: round(decryptionsPerSecond, 0),
            unit: '/s',
            note: `${n} queued at once, all decrypted in ${round(daemonSeconds, 2)} s`,
          },
          { metric: 'raw jose compactDecrypt/s', value: round(josePerSecond, 0), unit: '/s', note: 'same tokens, same key, one thread' },
          { metric: 'daemon / raw jose', value: round(ratio * 100, 1), unit: '%' },
          { metric: 'daemon peak RSS', value: mb(peakRss), unit: 'MB', note: 'target < 200 MB' },
        ],
        metrics: {
          notifications: intake.requests,
          acceptedPerSecond: round(intake.requestsPerSecond),
          intakeP50Ms: intake.p50Ms,
          intakeP99Ms: intake.p99Ms,
          decrypted: n,
          decryptionsPerSecond: round(decryptionsPerSecond),
          joseDecryptionsPerSecond: round(josePerSecond),
          decryptionVsJoseRatio: round(ratio, 3),
          daemonPeakRssMb: mb(peakRss),
        },
      };
    } finally {
      db.close();
      await daemon.stop();
    }
  },
};
