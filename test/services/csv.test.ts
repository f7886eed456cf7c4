import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/services/csv.js';
import { createOrganization } from '../../src/services/organizations.js';
import { importTransactions } from '../../src/services/transaction-import.js';
import { countTransactions } from '../../src/store/transactions.js';
import { makeContext } from '../support/context.js';

const HEADER = 'type,status,providerTransactionId,amountUsd,createdAt';
const errorsOf = async (importing: Promise<unknown>): Promise<{ path: string; message: string }[]> => {
  try {
    await importing;
  } catch (err) {
    return (err as { extra: { errors: { path: string; message: string }[] } }).extra.errors;
  }
  throw new Error('the import was not refused');
};

describe('parseCsv', () => {
  it('reads quoted fields with commas, doubled quotes, newlines and any Unicode', () => {
    expect(parseCsv('a,b\r\n"x, ""y""","Zoë\n💸"\r\n')).toEqual([{ line: 2, value: { a: 'x, "y"', b: 'Zoë\n💸' } }]);
  });

  it('reports a quoted field that is never closed on the line of its row, instead of taking the rest of the file as its value', () => {
    expect(parseCsv('a,b\n1,"2\n')).toEqual([{ line: 2, value: undefined, error: 'the quoted field opened on line 2 is never closed' }]);
    expect(parseCsv('a,b\n1,2\n3,"4\n5,6\n')).toEqual([
      { line: 2, value: { a: '1', b: '2' } },
      { line: 3, value: undefined, error: 'the quoted field opened on line 3 is never closed' },
    ]);
  });

  it('reports text after a closing quote on its row, instead of joining it to the quoted value', () => {
    expect(parseCsv('a,b\n"x"y,2\n1,"2" \n3,4\n')).toEqual([
      { line: 2, value: undefined, error: 'text follows the closing quote of field 1' },
      { line: 3, value: undefined, error: 'text follows the closing quote of field 2' },
      { line: 4, value: { a: '3', b: '4' } },
    ]);
    expect(parseCsv('"a"b,c\n1,2\n')).toEqual([{ line: 1, value: undefined, error: 'text follows the closing quote of field 1' }]);
    // A quote inside an unquoted field is text, as before: only a field that starts with one is quoted.
    expect(parseCsv('a,b\nx"y,"z"\n')).toEqual([{ line: 2, value: { a: 'x"y', b: 'z' } }]);
  });

  it('skips lines of only spaces or tabs as it skips empty ones, but keeps a row of empty fields', () => {
    expect(parseCsv('a,b\n1,2\n   \n\t\n\n3,4\n  ')).toEqual([
      { line: 2, value: { a: '1', b: '2' } },
      { line: 6, value: { a: '3', b: '4' } },
    ]);
    expect(parseCsv('a,b\n,\n" "\n')).toEqual([
      { line: 2, value: {} },
      { line: 3, value: undefined, error: 'has 1 fields, the header names 2' },
    ]);
  });

  // RFC 4180, section 2's own examples, each as a header and one record.
  it.each([
    ['CRLF line ends', 'a,b,c\r\naaa,bbb,ccc\r\n', { a: 'aaa', b: 'bbb', c: 'ccc' }],
    ['no line end after the last record', 'a,b,c\r\nzzz,yyy,xxx', { a: 'zzz', b: 'yyy', c: 'xxx' }],
    ['quoted fields', 'a,b,c\r\n"aaa","bbb","ccc"\r\n', { a: 'aaa', b: 'bbb', c: 'ccc' }],
    ['a line break in a quoted field', 'a,b,c\r\n"aaa","b\r\nbb","ccc"\r\n', { a: 'aaa', b: 'b\r\nbb', c: 'ccc' }],
    ['a doubled quote in a quoted field', 'a,b,c\r\n"aaa","b""bb","ccc"\r\n', { a: 'aaa', b: 'b"bb', c: 'ccc' }],
  ])('reads RFC 4180 section 2: %s', (_name, text, value) => {
    expect(parseCsv(text)).toEqual([{ line: 2, value }]);
  });

  it('drops a leading byte order mark and takes LF, CRLF and CR line ends in one file', () => {
    expect(parseCsv('\ufeffa,b\n1,2\r\n3,4\r5,6')).toEqual([
      { line: 2, value: { a: '1', b: '2' } },
      { line: 3, value: { a: '3', b: '4' } },
      { line: 4, value: { a: '5', b: '6' } },
    ]);
  });

  it('numbers rows after a multi-line quoted field by the line each starts on', () => {
    expect(parseCsv('a,b\n"1\n2\n3",x\n\n4,"5\n"\n6,7\n')).toEqual([
      { line: 2, value: { a: '1\n2\n3', b: 'x' } },
      { line: 6, value: { a: '4', b: '5\n' } },
      { line: 8, value: { a: '6', b: '7' } },
    ]);
    // The line an unclosed quote opens on, when its row began lines earlier.
    expect(parseCsv('a,b\n"1\n2","3\n4\n')).toEqual([
      { line: 2, value: undefined, error: 'the quoted field opened on line 3 is never closed' },
    ]);
  });

  it('tells a quoted value that starts with a quote from text after a closing quote', () => {
    expect(parseCsv('a,b\n"""x""y",""""\n" ",\n')).toEqual([
      { line: 2, value: { a: '"x"y', b: '"' } },
      { line: 3, value: { a: ' ' } },
    ]);
    expect(parseCsv('a,b\n"x"y",2\n""x,2\n1,"2"3\n')).toEqual([
      { line: 2, value: undefined, error: 'text follows the closing quote of field 1' },
      { line: 3, value: undefined, error: 'text follows the closing quote of field 1' },
      { line: 4, value: undefined, error: 'text follows the closing quote of field 2' },
    ]);
  });

  it('refuses a header that names a field twice, instead of keeping the last value', () => {
    expect(parseCsv('a,b, a\n1,2,3\n')).toEqual([{ line: 1, value: undefined, error: 'the header names a twice' }]);
    expect(parseCsv('a,b,,\n1,2,,\n')).toEqual([{ line: 2, value: { a: '1', b: '2' } }]);
  });
});

describe('CSV transaction import', () => {
  it('refuses the file naming the line of an unclosed quote or a repeated header field', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const unclosed = `${HEADER}\nDeposit,Completed,p-1,1,2026-01-01T00:00:00Z\nDeposit,Completed,p-2,2,"2026-01-01T00:00:00Z\n`;
    expect(await errorsOf(importTransactions(ctx, org.id, unclosed, 'csv'))).toEqual([
      { path: 'line 3', message: 'the quoted field opened on line 3 is never closed' },
    ]);
    const twice = `${HEADER},type\nDeposit,Completed,p-3,1,2026-01-01T00:00:00Z,Withdrawal\n`;
    expect(await errorsOf(importTransactions(ctx, org.id, twice, 'csv'))).toEqual([
      { path: 'line 1', message: 'the header names type twice' },
    ]);
    expect(await countTransactions(ctx.db, org.id)).toBe(0);
  });
});
