/**
 * A webhook's health at a glance: bars of the last 24 hours (height: attempts, colour: success
 * rate) and of their mean latency, and the numbers beside them.
 *
 * @module console/health
 */
import { h, type Child } from './dom.js';
import type { Health, Period } from './types.js';

const HOUR_MS = 3_600_000;

/** The last 24 hours, oldest first, hours without attempts as empty entries. */
function hours(health: Health): (Period | undefined)[] {
  const byHour = new Map(health.hourly.map((p) => [Date.parse(p.hour), p]));
  const now = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
  return Array.from({ length: 24 }, (_, i) => byHour.get(now - (23 - i) * HOUR_MS));
}

function bar(height: number, cls: string, title: string): HTMLElement {
  const el = h('span', { class: cls, title });
  // Set through the CSSOM: the Content-Security-Policy allows no inline style attribute.
  el.style.height = `${Math.max(1, Math.round(height))}px`;
  return el;
}

export function successBars(health: Health): HTMLElement {
  const hs = hours(health);
  const max = Math.max(1, ...hs.map((p) => p?.attempts ?? 0));
  return h(
    'span',
    { class: 'bars', 'aria-label': 'attempts per hour, coloured by success rate' },
    hs.map((p) => {
      if (!p) return bar(1, '', 'no attempts');
      const rate = p.successRate ?? 0;
      const cls = rate >= 0.99 ? 'ok' : rate >= 0.5 ? 'warn' : 'bad';
      return bar((p.attempts / max) * 28, cls, `${p.succeeded}/${p.attempts} succeeded`);
    }),
  );
}

export function latencyBars(health: Health): HTMLElement {
  const hs = hours(health);
  const max = Math.max(1, ...hs.map((p) => p?.meanLatencyMs ?? 0));
  return h(
    'span',
    { class: 'bars latency', 'aria-label': 'mean latency per hour' },
    hs.map((p) => bar(p?.meanLatencyMs ? (p.meanLatencyMs / max) * 28 : 1, '', p?.meanLatencyMs ? `${p.meanLatencyMs} ms` : 'no attempts')),
  );
}

export const rate = (p: Period): Child =>
  p.successRate === null ? h('span', { class: 'muted' }, '—') : `${Math.round(p.successRate * 1000) / 10}%`;
export const latency = (p: Period): Child => (p.meanLatencyMs === null ? h('span', { class: 'muted' }, '—') : `${p.meanLatencyMs} ms`);
