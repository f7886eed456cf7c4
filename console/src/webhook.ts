/**
 * One webhook: its health, its blocked resources (ordered delivery) with skip and cancel of their
 * head, its deliveries (newest first, filtered, paged) with their attempts, retry and replay with
 * confirmation, and a test event.
 *
 * @module console/webhook
 */
import { ApiError, call, notifications, query, type Session } from './api.js';
import { fill, formValues, h, pill, when, type Child } from './dom.js';
import { latency, latencyBars, rate, successBars } from './health.js';
import {
  DELIVERY_STATES,
  EVENT_TYPES,
  type Attempt,
  type BlockedLine,
  type BlockedLines,
  type Delivery,
  type DeliveryPage,
  type DeliveryWithAttempts,
  type Health,
  type ReplayResult,
  type TestEventResult,
} from './types.js';

const message = (err: unknown): string => (err instanceof ApiError ? `${err.message} (${err.code})` : String(err));

function attemptsTable(attempts: Attempt[]): HTMLElement {
  if (attempts.length === 0) return h('p', { class: 'muted' }, 'Not attempted yet.');
  return h(
    'table',
    { class: 'attempts' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['#', 'Started', 'Status', 'Duration', 'Error', 'Answer (first KiB)', 'Request headers'].map((t) => h('th', {}, t)),
      ),
    ),
    h(
      'tbody',
      {},
      attempts.map((a) =>
        h(
          'tr',
          {},
          h('td', {}, String(a.attempt)),
          h('td', {}, when(a.startedAt)),
          h('td', { class: 'status' }, a.statusCode === null ? '—' : String(a.statusCode)),
          h('td', {}, `${a.durationMs} ms`),
          h('td', { class: 'error' }, a.error ?? ''),
          h('td', {}, a.responseBody ? h('pre', {}, a.responseBody) : ''),
          h(
            'td',
            {},
            a.requestHeadersSource === 'rebuilt'
              ? h('p', { class: 'muted' }, 'Rebuilt (recorded before the headers sent were kept): webhook-* and traceparent unknown')
              : '',
            Object.keys(a.requestHeaders).length === 0
              ? h('p', { class: 'muted' }, 'No request went out.')
              : h(
                  'pre',
                  {},
                  Object.entries(a.requestHeaders).map(([k, v]) => `${k}: ${k === 'x-signature' ? `${v.slice(0, 16)}…` : v}\n`),
                ),
          ),
        ),
      ),
    ),
  );
}

export async function webhookPage(session: Session, root: HTMLElement, webhookId: string): Promise<() => Promise<void>> {
  const base = notifications(session);
  const hook = `${base}/webhooks/settings/${encodeURIComponent(webhookId)}`;
  const status = h('div', { id: 'status' });
  const healthBox = h('div', { class: 'card' });
  const blockedBox = h('div', { id: 'blocked' });
  const list = h('div', { id: 'deliveries' });
  const filters = h(
    'form',
    { class: 'row', id: 'filters' },
    h(
      'label',
      {},
      'State',
      h(
        'select',
        { name: 'state' },
        h('option', { value: '' }, 'any'),
        DELIVERY_STATES.map((s) => h('option', { value: s }, s)),
      ),
    ),
    h(
      'label',
      {},
      'Event type',
      h(
        'select',
        { name: 'eventType' },
        h('option', { value: '' }, 'any'),
        EVENT_TYPES.map((t) => h('option', { value: t }, t)),
      ),
    ),
    h('label', {}, 'Since', h('input', { name: 'since', type: 'datetime-local' })),
    h('label', {}, 'Until', h('input', { name: 'until', type: 'datetime-local' })),
    h('button', { type: 'submit' }, 'Filter'),
  );
  const expanded = new Set<string>();
  let pages: Delivery[] = [];
  let hasMore = false;

  const say = (text: string, error = false) => fill(status, text ? h('div', { class: error ? 'notice error' : 'notice' }, text) : null);
  const filterQuery = () => {
    const v = formValues(filters);
    const iso = (s: string | undefined) => (s ? new Date(s).toISOString() : undefined);
    return { state: v.state, eventType: v.eventType, since: iso(v.since), until: iso(v.until) };
  };

  const retry = async (d: Delivery) => {
    if (!confirm(`Retry delivery ${d.id} of ${d.eventType} now?`)) return;
    try {
      await call(session, 'POST', `${base}/deliveries/${d.id}/retry`);
      say(`Delivery ${d.id} queued again.`);
      expanded.add(d.id);
      await refresh();
    } catch (err) {
      say(message(err), true);
    }
  };

  const release = async (line: BlockedLine, verb: 'skip' | 'cancel') => {
    const what = verb === 'skip' ? 'skip it (a replay sends it again)' : 'cancel it (never sent)';
    if (!confirm(`Release ${line.waiting} waiting deliveries of ${line.resource ?? 'this webhook'}: ${what}: delivery ${line.headId}?`))
      return;
    try {
      await call(session, 'POST', `${base}/deliveries/${line.headId}/${verb}`);
      say(`Delivery ${line.headId} ${verb === 'skip' ? 'skipped' : 'cancelled'}; the next of ${line.resource ?? 'this webhook'} goes.`);
      await refresh();
    } catch (err) {
      say(message(err), true);
    }
  };

  const renderBlocked = (lines: BlockedLine[]) =>
    fill(
      blockedBox,
      lines.length === 0
        ? null
        : h(
            'div',
            {},
            h('h2', {}, 'Blocked resources'),
            h(
              'p',
              { class: 'muted' },
              'Ordered delivery: each of these waits behind its oldest pending delivery, which has failed. Skip or cancel it to release the rest.',
            ),
            h(
              'table',
              {},
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  ['Resource', 'Head', 'Attempts', 'Last answer', 'Next attempt', 'Waiting', ''].map((t) => h('th', {}, t)),
                ),
              ),
              h(
                'tbody',
                {},
                lines.map((line) =>
                  h(
                    'tr',
                    { 'data-blocked': line.resource ?? '' },
                    h('td', { class: 'mono' }, line.resource ?? '—'),
                    h('td', { class: 'mono' }, line.headId),
                    h('td', {}, String(line.attempts)),
                    h('td', {}, line.lastStatus === null ? (line.lastError ?? '—') : String(line.lastStatus)),
                    h('td', {}, when(line.nextAttemptAt)),
                    h('td', {}, String(line.waiting)),
                    h(
                      'td',
                      {},
                      h('button', { class: 'skip', onclick: () => void release(line, 'skip') }, 'Skip head'),
                      ' ',
                      h('button', { class: 'cancel', onclick: () => void release(line, 'cancel') }, 'Cancel head'),
                    ),
                  ),
                ),
              ),
            ),
          ),
    );

  const renderList = async () => {
    const rows: Child[] = [];
    for (const d of pages) {
      rows.push(
        h(
          'tr',
          {
            class: 'expandable',
            'data-delivery': d.id,
            onclick: () => {
              if (expanded.has(d.id)) expanded.delete(d.id);
              else expanded.add(d.id);
              void renderList();
            },
          },
          h('td', {}, when(d.createdAt)),
          h('td', {}, d.eventType, h('div', { class: 'muted mono' }, d.eventId)),
          h(
            'td',
            { class: 'state-cell' },
            pill(d.state),
            d.inFlight ? h('span', { class: 'muted' }, ' sending…') : null,
            d.waitingBehind ? h('div', { class: 'muted' }, `waiting behind ${d.waitingBehind}`) : null,
          ),
          h('td', {}, String(d.attempts)),
          h('td', {}, d.lastStatus === null ? (d.lastError ?? '—') : String(d.lastStatus)),
          h('td', {}, when(d.nextAttemptAt)),
          h(
            'td',
            {},
            h(
              'button',
              {
                class: 'retry',
                disabled: d.inFlight,
                onclick: (e: Event) => {
                  e.stopPropagation();
                  void retry(d);
                },
              },
              'Retry',
            ),
          ),
        ),
      );
      if (expanded.has(d.id)) {
        const cell = h('td', { colspan: 7 }, h('span', { class: 'muted' }, 'Loading attempts…'));
        rows.push(h('tr', { class: 'detail', 'data-attempts': d.id }, cell));
        call<DeliveryWithAttempts>(session, 'GET', `${base}/deliveries/${d.id}`).then(
          (r) => fill(cell, attemptsTable(r.attempts)),
          (err: unknown) => fill(cell, h('span', { class: 'error' }, message(err))),
        );
      }
    }
    fill(
      list,
      pages.length === 0
        ? h('p', { class: 'muted' }, 'No deliveries match.')
        : h(
            'table',
            {},
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Created', 'Event', 'State', 'Attempts', 'Last answer', 'Next attempt', ''].map((t) => h('th', {}, t)),
              ),
            ),
            h('tbody', {}, rows),
          ),
      hasMore ? h('button', { id: 'more', onclick: () => void more() }, 'Older deliveries') : null,
    );
  };

  const load = async (startingAfter?: string) =>
    await call<DeliveryPage>(session, 'GET', `${hook}/deliveries${query({ ...filterQuery(), limit: 20, startingAfter })}`);

  const more = async () => {
    const page = await load(pages.at(-1)?.id);
    pages = [...pages, ...page.data];
    hasMore = page.hasMore;
    await renderList();
  };

  const renderHealth = (health: Health) =>
    fill(
      healthBox,
      h(
        'div',
        { class: 'metrics' },
        h('div', {}, 'State', h('b', {}, pill(health.enabled ? 'enabled' : 'disabled'), health.slow ? [' ', pill('slow')] : null)),
        h('div', {}, 'Success 1 h', h('b', {}, rate(health.lastHour))),
        h('div', {}, 'Success 24 h', h('b', {}, rate(health.lastDay))),
        h('div', {}, 'Latency 24 h', h('b', {}, latency(health.lastDay))),
        h('div', {}, 'Failures in a row', h('b', { id: 'failures' }, String(health.failuresInARow))),
        h('div', {}, 'Last success', h('b', {}, when(health.lastSuccessAt))),
        h('div', {}, 'Next attempt', h('b', {}, when(health.nextAttemptAt))),
        h('div', {}, 'Last 24 h', h('b', {}, successBars(health), ' ', latencyBars(health))),
      ),
      health.disabledReason
        ? h('p', { class: 'error' }, `Disabled ${new Date(health.disabledAt ?? '').toLocaleString()}: ${health.disabledReason}`)
        : null,
    );

  const refresh = async () => {
    const [health, page, blocked] = await Promise.all([
      call<Health>(session, 'GET', `${hook}/health`),
      load(),
      call<BlockedLines>(session, 'GET', `${hook}/blocked`),
    ]);
    renderHealth(health);
    renderBlocked(blocked.data);
    // A refresh keeps the pages already shown, up to their length.
    const shown = Math.max(pages.length, 20);
    pages = page.data.slice(0, shown);
    hasMore = page.hasMore;
    await renderList();
  };

  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    pages = [];
    void refresh().catch((err: unknown) => say(message(err), true));
  });

  const replayForm = h(
    'form',
    { class: 'row', id: 'replay' },
    h('label', {}, 'Since', h('input', { name: 'since', type: 'datetime-local', required: true })),
    h('label', {}, 'Until (optional)', h('input', { name: 'until', type: 'datetime-local' })),
    h('button', { type: 'submit' }, 'Replay'),
  );
  replayForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(replayForm);
    const body: Record<string, string> = { since: new Date(v.since ?? '').toISOString() };
    if (v.until) body.until = new Date(v.until).toISOString();
    if (!confirm(`Replay every event from ${body.since}${body.until ? ` to ${body.until}` : ''} to this webhook?`)) return;
    call<ReplayResult>(session, 'POST', `${hook}/replay`, body).then(
      async (r) => {
        say(`Replay: ${r.requeued} of ${r.events} events queued.`);
        await refresh();
      },
      (err: unknown) => say(message(err), true),
    );
  });

  const testResult = h('div', { id: 'test-result' });
  const testForm = h(
    'form',
    { class: 'stack', id: 'test' },
    h(
      'label',
      {},
      'Type',
      h(
        'select',
        { name: 'type' },
        EVENT_TYPES.map((t) => h('option', { value: t }, t)),
      ),
    ),
    h('label', {}, 'Data (JSON object, optional)', h('textarea', { name: 'data', placeholder: '{"note": "hello"}' })),
    h('div', {}, h('button', { type: 'submit', class: 'primary' }, 'Send test event')),
  );
  testForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(testForm);
    let data: unknown;
    try {
      data = v.data ? (JSON.parse(v.data) as unknown) : undefined;
    } catch {
      fill(testResult, h('p', { class: 'error' }, 'Data is not valid JSON.'));
      return;
    }
    fill(testResult, h('p', { class: 'muted' }, 'Sending…'));
    call<TestEventResult>(session, 'POST', `${hook}/test`, {
      type: v.type,
      data,
    }).then(
      async (r) => {
        fill(
          testResult,
          h(
            'p',
            {},
            `Event ${r.event.id}: `,
            r.attempt
              ? `answered ${r.attempt.statusCode ?? r.attempt.error ?? '—'} in ${r.attempt.durationMs} ms`
              : 'queued, not attempted yet',
          ),
          r.attempt ? attemptsTable([r.attempt]) : null,
        );
        await refresh();
      },
      (err: unknown) => fill(testResult, h('p', { class: 'error' }, message(err))),
    );
  });

  fill(
    root,
    h('p', {}, h('a', { href: '#/webhooks' }, '← Webhooks')),
    h('h1', {}, 'Webhook ', h('span', { class: 'mono' }, webhookId)),
    status,
    healthBox,
    blockedBox,
    h('h2', {}, 'Deliveries'),
    filters,
    list,
    h('h2', {}, 'Replay'),
    h(
      'div',
      { class: 'card' },
      h(
        'p',
        { class: 'muted' },
        'Queues the events of a time range for this webhook again (at most 10,000; deliveries already pending are left alone).',
      ),
      replayForm,
    ),
    h('h2', {}, 'Send a test event'),
    h('div', { class: 'card' }, testForm, testResult),
  );
  await refresh();
  return refresh;
}
