/**
 * The console in a real browser: Debian's chromium driven by playwright-core (no browser download),
 * against an app on 127.0.0.1 with a dispatcher and a local webhook receiver. Needs `npm run build`
 * (the console is served from dist/console). With BORDERD_CONSOLE_SCREENSHOTS=DIR the main pages are
 * saved there as PNG files (docs/console.md shows them).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/api/console.js';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { emitEvent } from '../../src/services/outbox.js';
import { enqueueEvent, inOutboxTransaction } from '../../src/delivery/enqueue.js';
import type { EventDataByType } from '../../src/verify/events.js';
import { PACKAGE_ROOT } from '../../src/version.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';
import { startReceiver } from '../delivery/receiver.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const BUILT = existsSync(join(PACKAGE_ROOT, 'dist', 'console', 'main.js'));
const SHOTS = process.env.BORDERD_CONSOLE_SCREENSHOTS;

let browser: Browser;
beforeAll(async () => {
  if (!CHROMIUM) throw new Error('chromium is not installed (apt-get install -y chromium)');
  if (!BUILT) throw new Error('the console is not built: run npm run build');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
});

async function world(overrides: Record<string, unknown> = {}) {
  const ctx = await makeContext(overrides);
  const { app, tokens } = makeApi(ctx);
  const a = await makeOrg(ctx, tokens, { name: 'Acme' });
  const b = await makeOrg(ctx, tokens, { name: 'Globex' });
  const receiver = await startReceiver();
  const server: Server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const post = async (auth: string, path: string, body: unknown) => {
    const res = await fetch(base + path, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as { id: string };
  };
  const hookA = await post(a.auth, '/v1/notifications/webhooks/settings', { url: receiver.url });
  const hookB = await post(b.auth, '/v1/notifications/webhooks/settings', { url: `${receiver.url}/globex` });
  const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
  dispatcher.start();
  return {
    ctx,
    a,
    b,
    receiver,
    base,
    hookA: hookA.id,
    hookB: hookB.id,
    close: async () => {
      await dispatcher.stop();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

async function openConsole(base: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems: string[] = [];
  // Any script error or refused resource (a CSP violation is a console error) fails the test.
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 40[49]/.test(m.text())) problems.push(m.text());
  });
  page.on('dialog', (d) => void d.accept());
  const res = await page.goto(`${base}/console/`);
  expect(res!.headers()['content-security-policy']).toBe(CONSOLE_CSP);
  return { page, problems };
}

const shot = async (page: Page, name: string) => {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
};

describe.skipIf(process.env.BORDERD_TEST_BACKEND === 'postgres')('web console in chromium', () => {
  it('a tenant sees its failed delivery, retries it and watches it turn delivered, sends a test event, and sees nothing of another organization', async () => {
    const w = await world();
    try {
      w.receiver.setResponder((_r, res) => res.writeHead(500).end('database locked'));
      await emitEvent(w.ctx, w.a.org.id, 'Transaction_Created', { status: 'Submitted' });
      await w.receiver.waitFor(1);
      await emitEvent(w.ctx, w.b.org.id, 'Transaction_Created', { status: 'Submitted' });
      await w.receiver.waitFor(2);

      const { page, problems } = await openConsole(w.base);
      await page.fill('#tenant-signin input[name=clientId]', w.a.client.id);
      await page.fill('#tenant-signin input[name=clientSecret]', w.a.client.clientSecret);
      await page.click('#tenant-signin button[type=submit]');
      const row = page.locator(`tr[data-webhook="${w.hookA}"]`);
      await expect.poll(() => row.locator('td.failures').textContent()).toBe('1');
      // Only its own webhook: the other organization's is not listed.
      expect(await page.locator(`tr[data-webhook="${w.hookB}"]`).count()).toBe(0);
      await shot(page, 'webhooks');

      await row.locator('a').click();
      const delivery = page.locator('tr[data-delivery]').first();
      await expect.poll(() => delivery.locator('.state-cell').textContent()).toContain('pending');
      await delivery.click();
      const attempts = page.locator('tr[data-attempts] table.attempts');
      await expect.poll(() => attempts.locator('td.status').first().textContent()).toBe('500');
      expect(await attempts.textContent()).toContain('database locked');
      await shot(page, 'webhook');

      w.receiver.setResponder((_r, res) => res.end('ok'));
      await delivery.locator('button.retry').click();
      await expect
        .poll(() => page.locator('tr[data-delivery]').first().locator('.state-cell').textContent(), { timeout: 20_000 })
        .toContain('delivered');

      await page.selectOption('#test select[name=type]', 'VirtualAccount_Created');
      await page.fill('#test textarea[name=data]', '{"note":"from the console"}');
      await page.click('#test button[type=submit]');
      await expect.poll(() => page.locator('#test-result').textContent(), { timeout: 20_000 }).toMatch(/answered 200/);
      const last = JSON.parse(w.receiver.received.at(-1)!.body.toString()) as { type: string; data: Record<string, unknown> };
      expect(last).toMatchObject({
        type: 'test.VirtualAccount_Created',
        data: { synthetic: true, testData: { note: 'from the console' } },
      });
      await shot(page, 'test-event');

      await page.click('a[href="#/events"]');
      await expect.poll(() => page.locator('tr[data-event]').count()).toBe(2);
      await shot(page, 'events');
      // The navigation is the page table's, less the operator's pages; asked for one, a tenant gets the first page.
      expect(await page.locator('header nav a').allTextContents()).toEqual(['Webhooks', 'Events']);
      await page.goto(`${w.base}/console/#/inbound`);
      await expect.poll(() => page.locator('main h1').textContent()).toBe('Webhooks');

      // Another organization's webhook, asked for by id: not found, nothing of it shown.
      await page.goto(`${w.base}/console/#/webhooks/${w.hookB}`);
      await expect.poll(() => page.locator('main').textContent()).toMatch(/not found|unknown/i);
      expect(await page.content()).not.toContain('/globex');
      // The token is kept for this tab only: never in the address, never in a cookie.
      const token = await page.evaluate<string>("JSON.parse(sessionStorage.getItem('borderd.console.session') ?? '{}').token");
      expect(token.length).toBeGreaterThan(20);
      expect(page.url()).not.toContain(token);
      expect(await page.context().cookies()).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('shows a slow endpoint as slow in the webhook list and on its page', async () => {
    const w = await world({ 'delivery.slowAfterMs': 100 });
    try {
      w.receiver.setResponder((_r, res) => void setTimeout(() => res.end('ok'), 200));
      await emitEvent(w.ctx, w.a.org.id, 'Transaction_Created', { status: 'Submitted' });
      await w.receiver.waitFor(1);
      const { page, problems } = await openConsole(w.base);
      await page.fill('#tenant-signin input[name=clientId]', w.a.client.id);
      await page.fill('#tenant-signin input[name=clientSecret]', w.a.client.clientSecret);
      await page.click('#tenant-signin button[type=submit]');
      const row = page.locator(`tr[data-webhook="${w.hookA}"]`);
      await expect.poll(() => row.locator('.state-slow').count()).toBe(1);
      await row.locator('a').click();
      await expect.poll(() => page.locator('.metrics .state-slow').textContent()).toBe('slow');
      expect(problems).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('an operator signs in with the admin token and sees every organization, and the inbound notifications', async () => {
    const w = await world();
    try {
      await emitEvent(w.ctx, w.b.org.id, 'Transaction_Created', {});
      await w.receiver.waitFor(1);
      const { page, problems } = await openConsole(w.base);
      await page.fill('#operator-signin input[name=token]', ADMIN_TOKEN);
      await page.click('#operator-signin button[type=submit]');
      await expect.poll(() => page.locator(`tr[data-webhook="${w.hookA}"]`).count()).toBe(1);
      expect(await page.locator('header nav a').allTextContents()).toEqual(['Webhooks', 'Events', 'Inbound']);
      await page.selectOption('#org', w.b.org.id);
      await expect.poll(() => page.locator(`tr[data-webhook="${w.hookB}"]`).count()).toBe(1);
      await page.click('a[href="#/events"]');
      await expect.poll(() => page.locator('tr[data-event]').count()).toBe(1);
      await page.click('a[href="#/inbound"]');
      await expect.poll(() => page.locator('main h1').textContent()).toBe('Card-network notifications');
      await shot(page, 'inbound');
      // A wrong admin token is refused at sign-in.
      await page.click('text=Sign out');
      await page.fill('#operator-signin input[name=token]', 'not-the-token');
      await page.click('#operator-signin button[type=submit]');
      await expect.poll(() => page.locator('#signin-error').textContent()).toMatch(/admin token/);
      expect(problems.filter((p) => !/401/.test(p))).toEqual([]);
    } finally {
      await w.close();
    }
  });
  it('a tenant with an ordered webhook sees its blocked resource and what waits behind its head, and skips the head to release the next', async () => {
    const w = await world();
    try {
      const patched = await fetch(`${w.base}/v1/notifications/webhooks/settings/${w.hookA}`, {
        method: 'PATCH',
        headers: { authorization: w.a.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ url: w.receiver.url, ordering: 'resource' }),
      });
      expect(((await patched.json()) as { ordering: string }).ordering).toBe('resource');
      w.receiver.setResponder((_r, res) => res.writeHead(500).end('not yet'));
      const data = { id: 'txn_console', status: 'Processing' } as unknown as EventDataByType['Transaction_Updated'];
      for (let i = 0; i < 3; i++) await inOutboxTransaction(w.ctx, (c) => enqueueEvent(c, w.a.org.id, 'Transaction_Updated', data));
      await w.receiver.waitFor(1);

      const { page, problems } = await openConsole(w.base);
      await page.fill('#tenant-signin input[name=clientId]', w.a.client.id);
      await page.fill('#tenant-signin input[name=clientSecret]', w.a.client.clientSecret);
      await page.click('#tenant-signin button[type=submit]');
      const row = page.locator(`tr[data-webhook="${w.hookA}"]`);
      await expect.poll(() => row.textContent()).toContain('ordered per resource');
      await row.locator('a').click();
      const blocked = page.locator('#blocked tr[data-blocked="txn_console"]');
      await expect.poll(() => blocked.count()).toBe(1);
      const head = (await blocked.locator('td').nth(1).textContent())!;
      expect(head).toMatch(/^dlv_/);
      expect(await blocked.locator('td').nth(5).textContent()).toBe('2');
      await expect.poll(() => page.locator('tr[data-delivery] .state-cell').first().textContent()).toContain(`waiting behind ${head}`);
      await shot(page, 'blocked');

      await blocked.locator('button.skip').click();
      await expect.poll(() => w.receiver.received.length).toBe(2);
      await expect.poll(async () => await blocked.locator('td').nth(1).textContent()).not.toBe(head);
      expect(await blocked.locator('td').nth(5).textContent()).toBe('1');
      expect(problems).toEqual([]);
    } finally {
      await w.close();
    }
  });
});
