import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createRegistry } from '../../src/metrics/definitions.js';
import { ROOT } from '../support/process.js';

const DIR = join(ROOT, 'examples', 'grafana');
const promtool = spawnSync('promtool', ['--version']).status === 0;

/** Every series name a registry's text can hold: each metric, and a histogram's _bucket, _sum and _count. */
async function exportedNames(): Promise<Set<string>> {
  const { registry } = createRegistry();
  const names = new Set<string>();
  for (const m of await registry.getMetricsAsJSON()) {
    names.add(m.name);
    if (String(m.type) === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(m.name + s);
  }
  return names;
}

/** The metric names a PromQL expression reads (borderd_…, process_…, nodejs_…). */
const namesIn = (expr: string): string[] => [...expr.matchAll(/\b((?:borderd|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!);

describe('examples/grafana', () => {
  it('the dashboard and the alert rules read only metrics borderd exports', async () => {
    const exported = await exportedNames();
    const dashboard = JSON.parse(readFileSync(join(DIR, 'dashboard.json'), 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
    const rules = parse(readFileSync(join(DIR, 'alert-rules.yml'), 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };
    const exprs = [
      ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
      ...rules.groups.flatMap((g) => g.rules.map((r) => r.expr)),
    ];
    const used = new Set(exprs.flatMap(namesIn));
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((n) => !exported.has(n))).toEqual([]);
    // What the issue asks the dashboard and the rules to cover.
    for (const name of [
      'borderd_outbox_pending',
      'borderd_outbox_oldest_pending_age_seconds',
      'borderd_delivery_attempts_total',
      'borderd_delivery_duration_seconds_bucket',
      'borderd_webhooks',
      'borderd_inbound_notifications_total',
    ])
      expect(used).toContain(name);
    expect(rules.groups.flatMap((g) => g.rules.map((r) => r.alert))).toEqual(
      expect.arrayContaining(['BorderdOutboxBacklogOld', 'BorderdWebhookDisabled', 'BorderdInboundDecryptionFailures']),
    );
  });

  it.runIf(promtool)('the alert rules pass promtool check rules and each rule its promtool test', () => {
    for (const args of [
      ['check', 'rules', 'alert-rules.yml'],
      ['test', 'rules', 'alert-rules.test.yml'],
    ]) {
      const run = spawnSync('promtool', args, { cwd: DIR });
      expect(run.status, `${run.stdout.toString()}${run.stderr.toString()}`).toBe(0);
    }
    // Each alert has a test that expects it to fire.
    const tests = parse(readFileSync(join(DIR, 'alert-rules.test.yml'), 'utf8')) as {
      tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const fired = new Set(tests.tests.flatMap((t) => t.alert_rule_test.filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname)));
    const rules = parse(readFileSync(join(DIR, 'alert-rules.yml'), 'utf8')) as { groups: { rules: { alert: string }[] }[] };
    expect([...fired].sort()).toEqual(rules.groups.flatMap((g) => g.rules.map((r) => r.alert)).sort());
  });
});
