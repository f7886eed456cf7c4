/**
 * The CLI speaks in one voice: usage errors as one short sentence with the nearest valid option or
 * value (exit 2), warnings as `borderd: …` lines rather than JSON log records, and a warning for a
 * BORDERD_* environment name borderd does not read. Needs `npm run build`.
 */
import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/services/organizations.js';
import { createWebhook } from '../../src/services/webhooks.js';
import { makeContext } from '../support/context.js';
import { runCli } from '../support/process.js';

describe('the CLI in one voice', () => {
  it("rewrites yargs's usage errors as one sentence naming the nearest option, value or missing argument", async () => {
    const ctx = await makeContext();
    const db = ['--db', ctx.config.database.path];
    const cases: [string[], string][] = [
      [['outbox', 'list', '--limt', '3'], 'unknown option --limt: did you mean --limit? (borderd outbox list --help lists the options)'],
      [
        ['outbox', 'list', '--state', 'deliverd'],
        '--state deliverd is not one of pending, delivered, failed, skipped, cancelled: did you mean delivered?',
      ],
      [['tx', 'status'], 'tx status needs <id> <status> (borderd tx status <id> <status>)'],
      [['tx', 'status', 'tx_1'], 'tx status needs <status> (borderd tx status <id> <status>)'],
      [['tx'], 'tx needs a command (borderd tx --help lists them)'],
      [['orgs', 'create'], 'orgs create needs --name (borderd orgs create --help)'],
      [['orgs', 'list', 'extra'], 'unexpected argument extra (borderd orgs list --help shows the usage)'],
    ];
    for (const [args, sentence] of cases) {
      const r = await runCli([...args, ...db]);
      expect([r.code, r.stdout, r.stderr], args.join(' ')).toEqual([2, '', `borderd: ${sentence}\n`]);
    }
  });

  it('says a warning of a command in a sentence, not as a JSON log line', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const webhook = await createWebhook(ctx, org.id, { url: 'http://127.0.0.1:9/hook' });
    const r = await runCli(['webhooks', 'disable', webhook.id, '--db', ctx.config.database.path]);
    expect([r.code, r.stdout]).toEqual([0, `disabled ${webhook.id}\n`]);
    expect(r.stderr).toBe(
      `borderd: webhook ${webhook.id} of organization ${org.id} disabled: disabled by an operator (borderd webhooks disable)\n`,
    );
    // Asked for, the log is the log: JSON lines.
    const logged = await runCli(['webhooks', 'enable', webhook.id, '--db', ctx.config.database.path], { BORDERD_CLI_LOG_LEVEL: 'info' });
    expect(logged.code).toBe(0);
    expect(
      logged.stderr
        .split('\n')
        .filter(Boolean)
        .every((l) => l.startsWith('{"level":')),
    ).toBe(true);
  });

  it('warns of a BORDERD_* environment name it does not read, naming the nearest one, and goes on', async () => {
    const ctx = await makeContext();
    await createOrganization(ctx, 'Acme');
    const r = await runCli(['orgs', 'list', '--db', ctx.config.database.path, '--print', 'name'], { BORDERD_DELIVERY_TIMOUT_MS: '5000' });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      'Acme\n',
      'borderd: environment variable BORDERD_DELIVERY_TIMOUT_MS is not a borderd setting and is ignored; did you mean BORDERD_DELIVERY_TIMEOUT_MS?\n',
    ]);
  });
});
