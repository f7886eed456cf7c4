/**
 * The store writes each difference between the engines one way, as a named fragment of
 * src/db/dialect.ts: the lint rule refuses an engine's own text, a test of the engine and a
 * hand-written planner hint in src/store/, and leaves the fragments alone.
 */
import { ESLint, type Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import tseslint from 'typescript-eslint';

type RuleEntry = Linter.RuleEntry;
const ruleFor = async (file: string): Promise<RuleEntry | undefined> =>
  ((await new ESLint().calculateConfigForFile(file)) as { rules: Record<string, RuleEntry | undefined> }).rules['no-restricted-syntax'];

/** The project's rule for src/store/, alone, on a snippet (the typed configuration wants a file its tsconfig holds). */
const storeRule = new ESLint({
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      rules: { 'no-restricted-syntax': (await ruleFor('src/store/deliveries.ts')) as RuleEntry },
    },
  ],
});

async function messagesOf(code: string): Promise<string[]> {
  const [result] = await storeRule.lintText(code, { filePath: 'src/store/example.ts' });
  return result!.messages.map((m) => m.message);
}

describe('the store dialect rule', () => {
  it('is on as an error for the files of src/store/ and nowhere else', async () => {
    const entry = await ruleFor('src/store/deliveries.ts');
    expect(Array.isArray(entry) && entry[0]).toBe(2);
    expect(await ruleFor('src/db/dialect.ts')).toBeUndefined();
  });

  it('flags an engine literal, a test of the engine and a hand-written INDEXED BY', async () => {
    const literal = await messagesOf(`export const Q = { sqlite: 'SELECT MAX(a, b)', postgres: 'SELECT GREATEST(a, b)' };`);
    expect(literal).toHaveLength(2);
    expect(literal[0]).toMatch(/An engine's own SQL text/);
    expect(await messagesOf(`export const Q = { 'postgres': 'x' };`)).toHaveLength(1);

    const ternary = await messagesOf(`export const f = (db: { dialect: string }) => (db.dialect === 'sqlite' ? 'rowid' : 'id');`);
    expect(ternary).toEqual([expect.stringMatching(/does not test the engine/)]);
    expect(await messagesOf(`export const f = ({ dialect }: { dialect: string }) => dialect;`)).toHaveLength(1);

    const hint = await messagesOf('export const Q = `SELECT id FROM deliveries INDEXED BY deliveries_webhook_due WHERE webhook_id = ?`;');
    expect(hint).toEqual([expect.stringMatching(/hand-written INDEXED BY/)]);
    expect(await messagesOf(`export const Q = 'SELECT id FROM t indexed  by t_a';`)).toHaveLength(1);
  });

  it('leaves statements composed from the named fragments alone', async () => {
    const composed = `
      import { sql } from '../db/database.js';
      import { GREATEST, indexedBy, JSON_LIST } from '../db/dialect.js';
      export const Q = sql\`UPDATE deliveries \${indexedBy('deliveries_webhook_due')} SET attempts = \${GREATEST}(attempts, ?) WHERE id IN (\${JSON_LIST})\`;
    `;
    expect(await messagesOf(composed)).toEqual([]);
  });
});
