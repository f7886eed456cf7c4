import { describe, expect, it } from 'vitest';
import { runCli } from '../support/process.js';

/** The help text with its wrapped lines joined again: a description wrapped at a space reads as written. */
async function help(args: string[]): Promise<string> {
  const result = await runCli([...args, '--help']);
  expect(result.code).toBe(0);
  return result.stdout;
}
const joined = (text: string) => text.replace(/[ \t]*\n[ \t]+/g, ' ');

describe('borderd --help', () => {
  it('wraps descriptions between words, never inside one', async () => {
    expect(joined(await help([]))).toContain('Emit events through the outbox (synthetic, compliance checks, virtual accounts)');
    expect(joined(await help([]))).toContain('(listen or --tunnel); replay captured events');
    expect(joined(await help(['tx']))).toContain('(emits Transaction_Updated; refused when the state machine forbids it)');
    expect(joined(await help(['receive']))).toContain(
      'without it a new tunnel starts with new events and a known one resumes from its capture log',
    );
  });

  it('receive replay lists only the options replay uses', async () => {
    const text = await help(['receive', 'replay']);
    for (const option of ['--capture-db', '--forward-to', '--header', '--forward-timeout', '--json']) expect(text).toContain(option);
    for (const option of [
      '--tunnel',
      '--port',
      '--host',
      '--public-key',
      '--client-id',
      '--client-secret',
      '--events',
      '--dedupe',
      '--heartbeat-timeout',
      '--since',
    ]) {
      expect(text).not.toContain(option);
    }
  });

  it('names the public-key route, not an internal endpoint number', async () => {
    const text = joined(await help(['receive']));
    expect(text).not.toMatch(/endpoint \d+/);
    expect(text).toContain('GET /v1/notifications/webhooks/settings/public-key');
  });
});
