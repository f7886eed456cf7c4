/**
 * The webhooks page: every webhook of the organization with its health.
 *
 * @module console/webhooks
 */
import { call, notifications, type Session } from './api.js';
import { fill, h, pill, when } from './dom.js';
import { latency, latencyBars, rate, successBars } from './health.js';
import type { WebhooksWithHealth } from './types.js';

export async function webhooksPage(session: Session, root: HTMLElement): Promise<() => Promise<void>> {
  const table = h('div', { id: 'webhooks' });
  fill(root, h('h1', {}, 'Webhooks'), table);
  const refresh = async () => {
    const { data } = await call<WebhooksWithHealth>(session, 'GET', `${notifications(session)}/webhooks/health`);
    if (data.length === 0) {
      fill(table, h('p', { class: 'muted' }, 'No webhooks registered.'));
      return;
    }
    fill(
      table,
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            [
              'Webhook',
              'State',
              'Last 24 h',
              'Success 1 h / 24 h',
              'Latency 24 h',
              'Failures in a row',
              'Last success',
              'Next attempt',
            ].map((t) => h('th', {}, t)),
          ),
        ),
        h(
          'tbody',
          {},
          data.map(({ webhook, health }) =>
            h(
              'tr',
              { 'data-webhook': webhook.id },
              h(
                'td',
                {},
                h('a', { href: `#/webhooks/${webhook.id}` }, webhook.url),
                h('div', { class: 'muted mono' }, webhook.id),
                webhook.eventTypes.length ? h('div', { class: 'muted' }, `types: ${webhook.eventTypes.join(', ')}`) : null,
                webhook.ordering !== 'none' ? h('div', { class: 'muted' }, `ordered per ${webhook.ordering}`) : null,
              ),
              h(
                'td',
                {},
                pill(health.enabled ? 'enabled' : 'disabled'),
                health.slow ? [' ', pill('slow')] : null,
                health.disabledReason ? h('div', { class: 'muted' }, health.disabledReason, ' ', when(health.disabledAt)) : null,
              ),
              h('td', {}, successBars(health), ' ', latencyBars(health)),
              h('td', {}, rate(health.lastHour), ' / ', rate(health.lastDay)),
              h('td', {}, latency(health.lastDay)),
              h('td', { class: 'failures' }, String(health.failuresInARow)),
              h('td', {}, when(health.lastSuccessAt)),
              h('td', {}, when(health.nextAttemptAt), health.pending ? h('div', { class: 'muted' }, `${health.pending} pending`) : null),
            ),
          ),
        ),
      ),
    );
  };
  await refresh();
  return refresh;
}
