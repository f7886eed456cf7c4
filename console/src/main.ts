/**
 * The console: sign-in (operator with the admin token, tenant with its client id and secret), the
 * header and its navigation, a page per hash route (one table, PAGES, drives both), and live
 * updates: a tenant follows its event stream, and every page is read again every few seconds, since
 * a delivery's outcome is no event.
 *
 * @module console/main
 */
import { ApiError, call, loadSession, saveSession, signInOperator, signInTenant, whenUnauthorized, type Session } from './api.js';
import { fill, formValues, h } from './dom.js';
import { eventsPage } from './events.js';
import { inboundPage } from './inbound.js';
import type { Organizations } from './types.js';
import { webhookPage } from './webhook.js';
import { webhooksPage } from './webhooks.js';

const POLL_MS = 3000;

/** A page of the console, reached at `#/name` (or `#/name/id`). */
interface PageRoute {
  name: string;
  /** Its link in the header's navigation. */
  label: string;
  /** Shown to the operator alone; a tenant that asks for it gets the first page. */
  operatorOnly?: boolean;
  /** It reads one organization's data, so an operator with no organization yet has nothing to see there. */
  perOrganization: boolean;
  /** Draws the page into `root`; what it returns reads the page again. */
  open(session: Session, root: HTMLElement, id: string | undefined): Promise<() => Promise<void>>;
}

/** Every page, in the navigation's order; the first is where a route of no page lands. A new page is one entry. */
const PAGES: readonly [PageRoute, ...PageRoute[]] = [
  {
    name: 'webhooks',
    label: 'Webhooks',
    perOrganization: true,
    open: (s, root, id) => (id ? webhookPage(s, root, decodeURIComponent(id)) : webhooksPage(s, root)),
  },
  { name: 'events', label: 'Events', perOrganization: true, open: (s, root) => eventsPage(s, root) },
  { name: 'inbound', label: 'Inbound', operatorOnly: true, perOrganization: false, open: (s, root) => inboundPage(s, root) },
];
const FIRST_PAGE = `#/${PAGES[0].name}`;

const pagesOf = (s: Session): PageRoute[] => PAGES.filter((p) => !p.operatorOnly || s.mode === 'operator');
const app = document.getElementById('app')!;
let session = loadSession();
let refresh: (() => Promise<void>) | undefined;
let stream: AbortController | undefined;

function signOut(note?: string): void {
  saveSession(undefined);
  session = undefined;
  stream?.abort();
  stream = undefined;
  render(note);
}
whenUnauthorized(() => signOut('Your session ended (the token expired or was refused). Sign in again.'));

function signInPage(note?: string): void {
  const error = h('p', { class: 'error', id: 'signin-error' });
  const fail = (err: unknown) => fill(error, err instanceof ApiError ? err.message : String(err));
  const tenant = h(
    'form',
    { class: 'stack card', id: 'tenant-signin' },
    h('h2', {}, 'Organization'),
    h('label', {}, 'Client id', h('input', { name: 'clientId', required: true, autocomplete: 'username' })),
    h(
      'label',
      {},
      'Client secret',
      h('input', { name: 'clientSecret', type: 'password', required: true, autocomplete: 'current-password' }),
    ),
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
  );
  tenant.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(tenant);
    signInTenant(v.clientId ?? '', v.clientSecret ?? '').then(start, fail);
  });
  const operator = h(
    'form',
    { class: 'stack card', id: 'operator-signin' },
    h('h2', {}, 'Operator'),
    h('label', {}, 'Admin token', h('input', { name: 'token', type: 'password', required: true, autocomplete: 'current-password' })),
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
  );
  operator.addEventListener('submit', (e) => {
    e.preventDefault();
    signInOperator(formValues(operator).token ?? '').then(start, fail);
  });
  fill(
    app,
    h(
      'main',
      {},
      h('h1', {}, 'borderd console'),
      note ? h('p', { class: 'notice' }, note) : null,
      error,
      h('div', { class: 'signin' }, tenant, operator),
    ),
  );
}

function start(s: Session): void {
  session = s;
  saveSession(s);
  if (s.mode === 'tenant') follow(s);
  if (!location.hash) location.hash = FIRST_PAGE;
  render();
}

/** A tenant's event stream (fetch, so the token goes in a header): each event reads the page again. */
function follow(s: Session): void {
  stream?.abort();
  const ctl = new AbortController();
  stream = ctl;
  const run = async () => {
    while (!ctl.signal.aborted) {
      try {
        const res = await fetch('/v1/notifications/events/stream', { headers: { authorization: `Bearer ${s.token}` }, signal: ctl.signal });
        if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffered = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffered += value;
          const lines = buffered.split('\n');
          buffered = lines.pop() ?? '';
          if (lines.some((l) => l.startsWith('event:') && !/^event:\s*(ready|signing-key)\s*$/.test(l)))
            void refresh?.().catch(() => undefined);
        }
      } catch {
        // Aborted at sign-out, or the daemon restarted: try again shortly.
      }
      await new Promise((r) => setTimeout(r, 5000));
    }
  };
  void run();
}

async function header(s: Session): Promise<HTMLElement> {
  const route = location.hash.split('/')[1] ?? PAGES[0].name;
  const link = (name: string, label: string) => h('a', { href: `#/${name}`, class: route === name ? 'active' : '' }, label);
  let orgPicker: HTMLElement | null = null;
  if (s.mode === 'operator') {
    const orgs = await call<Organizations>(s, 'GET', '/admin/v1/organizations');
    const select = h(
      'select',
      { id: 'org', 'aria-label': 'organization' },
      orgs.data.map((o) => h('option', { value: o.id, selected: o.id === s.orgId }, `${o.name} (${o.id})`)),
    );
    select.addEventListener('change', () => {
      start({ ...s, orgId: select.value });
      location.hash = FIRST_PAGE;
    });
    orgPicker = h('label', {}, 'Organization', select);
  }
  return h(
    'header',
    {},
    h('span', { class: 'brand' }, 'borderd console'),
    h(
      'nav',
      {},
      pagesOf(s).map((p) => link(p.name, p.label)),
    ),
    orgPicker,
    h(
      'span',
      { class: 'who' },
      h('span', { id: 'who' }, s.mode === 'operator' ? 'operator' : `organization client ${s.label}`),
      h('button', { onclick: () => signOut() }, 'Sign out'),
    ),
  );
}

let generation = 0;

function render(note?: string): void {
  refresh = undefined;
  if (!session) {
    signInPage(note);
    return;
  }
  const s = session;
  const mine = ++generation;
  const main = h('main', {});
  void (async () => {
    try {
      fill(app, await header(s), main);
      const [, name, id] = location.hash.split('/');
      const asked = pagesOf(s).find((p) => p.name === name);
      const page = asked ?? PAGES[0];
      if (s.mode === 'operator' && !s.orgId && page.perOrganization) {
        fill(main, h('p', { class: 'muted' }, 'No organization yet.'));
        return;
      }
      const r = await page.open(s, main, asked ? id : undefined);
      if (mine === generation) refresh = r;
    } catch (err) {
      if (mine === generation)
        fill(main, h('p', { class: 'error' }, err instanceof ApiError ? `${err.message} (${err.code})` : String(err)));
    }
  })();
}

window.addEventListener('hashchange', () => render());
setInterval(() => {
  if (document.visibilityState === 'visible') void refresh?.().catch(() => undefined);
}, POLL_MS);
if (session?.mode === 'tenant') follow(session);
render();
