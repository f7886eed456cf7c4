import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputFile } from '../../src/cli/import.js';
import { importIdentities } from '../../src/services/identities.js';
import { createOrganization } from '../../src/services/organizations.js';
import { importTransactions } from '../../src/services/transaction-import.js';
import { makeContext, tempDir } from '../support/context.js';

const BOM = '\uFEFF';
const saved = (text: string, name: string): string => {
  const file = join(tempDir(), name);
  writeFileSync(file, text, 'utf8');
  return file;
};

describe('import files with a byte order mark', () => {
  it('reads a UTF-8 file saved with a BOM as its text, for JSON lines as for CSV', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const tx = JSON.stringify({ type: 'Deposit', status: 'Completed', amountUsd: '1', createdAt: '2026-01-01T00:00:00Z' });
    expect(readInputFile(saved(`${BOM}${tx}\r\n`, 't.jsonl'))).toBe(`${tx}\r\n`);
    expect((await importTransactions(ctx, org.id, readInputFile(saved(`${BOM}${tx}\r\n`, 't.jsonl')), 'jsonl')).imported).toBe(1);
    const csv = `${BOM}type,status,amountUsd,createdAt\r\nDeposit,Completed,2,2026-01-01T00:00:00Z\r\n`;
    expect((await importTransactions(ctx, org.id, readInputFile(saved(csv, 't.csv')), 'csv')).imported).toBe(1);
    const person = JSON.stringify({ type: 'Personal', data: { firstName: 'Zoë' } });
    expect((await importIdentities(ctx, org.id, readInputFile(saved(`${BOM}${person}\n`, 'i.jsonl')).split(/\r?\n/))).imported).toBe(1);
  });

  it('keeps a BOM that is not at the start of the file', () => {
    expect(readInputFile(saved(`a\n${BOM}b`, 'x.jsonl'))).toBe(`a\n${BOM}b`);
  });
});
