/**
 * The operator's card-network notifications: their states, and a retry for a failed one.
 *
 * @module console/inbound
 */
import { ApiError, call, query, type Session } from './api.js';
import { fill, formValues, h, pill, when } from './dom.js';
import { INBOUND_STATES, type Notifications } from './types.js';

export async function inboundPage(session: Session, root: HTMLElement): Promise<() => Promise<void>> {
  const status = h('div', {});
  const list = h('div', { id: 'inbound' });
  const filters = h(
    'form',
    { class: 'row' },
    h(
      'label',
      {},
      'State',
      h(
        'select',
        { name: 'state' },
        h('option', { value: '' }, 'any'),
        INBOUND_STATES.map((s) => h('option', { value: s }, s)),
      ),
    ),
    h('button', { type: 'submit' }, 'Filter'),
  );
  const refresh = async () => {
    const page = await call<Notifications>(session, 'GET', `/admin/v1/inbound/events${query({ ...formValues(filters), limit: 100 })}`);
    fill(
      list,
      page.data.length === 0
        ? h('p', { class: 'muted' }, 'No notifications.')
        : h(
            'table',
            {},
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Received', 'Type', 'ica', 'Organization', 'State', 'Attempts', 'Failure', ''].map((t) => h('th', {}, t)),
              ),
            ),
            h(
              'tbody',
              {},
              page.data.map((n) =>
                h(
                  'tr',
                  {},
                  h('td', {}, when(n.receivedAt)),
                  h('td', {}, n.eventType, h('div', { class: 'muted mono' }, n.eventId)),
                  h('td', { class: 'mono' }, n.ica),
                  h('td', { class: 'mono' }, n.organizationId ?? '—'),
                  h('td', {}, pill(n.state)),
                  h('td', {}, String(n.attempts)),
                  h('td', { class: 'error' }, n.failureCode ? `${n.failureCode}: ${n.failureReason ?? ''}` : ''),
                  h(
                    'td',
                    {},
                    n.state === 'failed'
                      ? h(
                          'button',
                          {
                            onclick: () => {
                              if (!confirm(`Retry the decryption of ${n.eventId}?`)) return;
                              call(session, 'POST', `/admin/v1/inbound/events/${encodeURIComponent(n.eventId)}/retry`).then(
                                () => refresh(),
                                (err: unknown) =>
                                  fill(status, h('p', { class: 'error' }, err instanceof ApiError ? err.message : String(err))),
                              );
                            },
                          },
                          'Retry',
                        )
                      : null,
                  ),
                ),
              ),
            ),
          ),
    );
  };
  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    void refresh();
  });
  fill(root, h('h1', {}, 'Card-network notifications'), status, filters, list);
  await refresh();
  return refresh;
}
