/**
 * The event log: the organization's events, newest first, filtered by type and time, with where
 * each one went.
 *
 * @module console/events
 */
import { ApiError, call, notifications, query, type Session } from './api.js';
import { fill, formValues, h, pill, when } from './dom.js';
import { EVENT_TYPES, type EventPage, type EventRow } from './types.js';

export async function eventsPage(session: Session, root: HTMLElement): Promise<() => Promise<void>> {
  const list = h('div', { id: 'events' });
  const filters = h(
    'form',
    { class: 'row', id: 'event-filters' },
    h(
      'label',
      {},
      'Type',
      h(
        'select',
        { name: 'type' },
        h('option', { value: '' }, 'any'),
        EVENT_TYPES.map((t) => h('option', { value: t }, t)),
      ),
    ),
    h('label', {}, 'Since', h('input', { name: 'since', type: 'datetime-local' })),
    h('label', {}, 'Until', h('input', { name: 'until', type: 'datetime-local' })),
    h('button', { type: 'submit' }, 'Filter'),
  );
  let rows: EventRow[] = [];
  let hasMore = false;
  const params = () => {
    const v = formValues(filters);
    const iso = (s: string | undefined) => (s ? new Date(s).toISOString() : undefined);
    return { type: v.type, since: iso(v.since), until: iso(v.until) };
  };
  const load = (startingAfter?: string) =>
    call<EventPage>(session, 'GET', `${notifications(session)}/events${query({ ...params(), limit: 25, startingAfter })}`);
  const render = () =>
    fill(
      list,
      rows.length === 0
        ? h('p', { class: 'muted' }, 'No events match.')
        : h(
            'table',
            {},
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Created', 'Type', 'Event', 'Went to'].map((t) => h('th', {}, t)),
              ),
            ),
            h(
              'tbody',
              {},
              rows.map((e) =>
                h(
                  'tr',
                  { 'data-event': e.id },
                  h('td', {}, when(e.createdAt)),
                  h('td', {}, e.type),
                  h('td', { class: 'mono' }, e.id),
                  h(
                    'td',
                    {},
                    e.deliveries.length === 0
                      ? h('span', { class: 'muted' }, 'no webhook')
                      : e.deliveries.map((d) =>
                          h(
                            'div',
                            {},
                            h('a', { href: `#/webhooks/${d.webhookId}`, class: 'mono' }, d.webhookId),
                            ' ',
                            pill(d.state),
                            d.lastStatus ? ` ${d.lastStatus}` : '',
                          ),
                        ),
                  ),
                ),
              ),
            ),
          ),
      hasMore
        ? h(
            'button',
            {
              onclick: () =>
                void load(rows.at(-1)?.id).then((p) => {
                  rows = [...rows, ...p.data];
                  hasMore = p.hasMore;
                  render();
                }),
            },
            'Older events',
          )
        : null,
    );
  const refresh = async () => {
    const p = await load();
    rows = p.data;
    hasMore = p.hasMore;
    render();
  };
  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    refresh().catch((err: unknown) => fill(list, h('p', { class: 'error' }, err instanceof ApiError ? err.message : String(err))));
  });
  fill(root, h('h1', {}, 'Events'), filters, list);
  await refresh();
  return refresh;
}
