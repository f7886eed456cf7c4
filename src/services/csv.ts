/**
 * RFC 4180 CSV: a header row names the fields; quoted fields may hold commas, doubled quotes and
 * newlines. Each record carries the line where it starts; a row with the wrong number of fields, a
 * quoted field never closed or followed by text before its comma, and a header naming a field twice
 * are reported on their line instead of being guessed at. Empty lines and lines of only spaces or
 * tabs are skipped. A leading byte order mark is dropped.
 *
 * @module services/csv
 */
import { parse, type Options } from 'csv-parse/sync';
import { withoutByteOrderMark } from '../domain/byte-order-mark.js';

export interface CsvRecord {
  line: number;
  value: Record<string, string> | undefined;
  error?: string;
}

interface CsvRow {
  line: number;
  fields: string[];
  /** Set when a quoted field is never closed, or text follows its closing quote. */
  error?: string;
}

/** What both passes share: a quote inside an unquoted field is text; each row is checked by borderd. */
const COMMON: Options = {
  relax_quotes: true,
  relax_column_count: true,
  skip_records_with_error: true,
  record_delimiter: ['\r\n', '\n', '\r'],
};

/** A quoted field as RFC 4180 writes it, its closing quote last. */
const QUOTED_FIELD = /^"(?:[^"]|"")*"$/;
const BLANK = /^[ \t]*$/;

/**
 * The exact pass, for the row csv-parse skips (a quote never closed, which runs to the end of the
 * file): csv-parse again with each field's raw text and lines, to say on which line the open quote
 * is. It applies the same checks as the fast pass. Lines count from `firstLine`.
 */
function exactRows(text: string, firstLine: number): (CsvRow & { blank: boolean })[] {
  const rows: (CsvRow & { blank: boolean })[] = [];
  let endLine = firstLine - 1;
  // The row being read, field by field (cast runs once per field, before on_record).
  let fieldStart = 0;
  let fieldEndLine = firstLine;
  let unquoted = true;
  let error: string | undefined;
  const nextRow = (line: number): void => {
    endLine = line;
    fieldStart = 0;
    unquoted = true;
    error = undefined;
  };
  parse(text, {
    ...COMMON,
    raw: true,
    cast: (value, ctx) => {
      if (ctx.index === 0) fieldStart = 0;
      const raw = ctx.raw ?? '';
      if (ctx.quoting) {
        unquoted = false;
        // The field's raw text without the delimiter after it (csv-parse has read its first character).
        if (!QUOTED_FIELD.test(raw.slice(fieldStart).replace(/[,\r\n]$/, '')))
          error ??= `text follows the closing quote of field ${ctx.index + 1}`;
      }
      fieldStart = raw.length;
      fieldEndLine = firstLine - 1 + ctx.lines;
      return value;
    },
    // With `raw`, a record arrives as { record, raw }.
    on_record: (data, ctx) => {
      const fields = (data as unknown as { record: string[] }).record;
      const blank = unquoted && fields.length === 1 && BLANK.test(fields[0]!);
      rows.push({ line: endLine + 1, fields, blank, ...(error ? { error } : {}) });
      nextRow(firstLine - 1 + ctx.lines);
      return null;
    },
    on_skip: (err) => {
      const line = endLine + 1;
      // An open quote makes the rest of the file one field's value: said on the row it opens in.
      // It opens right after the row's last complete field, so on the line that field ends on.
      const message =
        err?.code === 'CSV_QUOTE_NOT_CLOSED'
          ? `the quoted field opened on line ${fieldStart > 0 ? fieldEndLine : line} is never closed`
          : (err?.message ?? 'unreadable row');
      rows.push({ line, fields: [], blank: false, error: message });
      nextRow(firstLine - 1 + ((err as { lines?: number } | undefined)?.lines ?? line));
    },
  });
  return rows;
}

const endsField = (raw: string, at: number): boolean => at === raw.length || raw[at] === ',' || raw[at] === '\n' || raw[at] === '\r';

/**
 * Checks csv-parse's fields against the row's raw text, for a row where relaxed quoting may have
 * read "abc"def as a value: each field must be there as written, quoted (its quotes doubled) or
 * not, and only a field read from quotes may start with one. Answers the row's error, if any, and
 * whether a field was quoted (a quoted lone field of spaces is a row, not a blank line).
 */
function checkQuotes(raw: string, fields: string[]): { error?: string; quoted: boolean } {
  let quoted = false;
  let at = 0;
  for (const [i, field] of fields.entries()) {
    const asQuoted = `"${field.replaceAll('"', '""')}"`;
    if (raw.startsWith(asQuoted, at) && endsField(raw, at + asQuoted.length)) {
      quoted = true;
      at += asQuoted.length + 1;
    } else if (field.charCodeAt(0) === 0x22 || !raw.startsWith(field, at) || !endsField(raw, at + field.length)) {
      return { error: `text follows the closing quote of field ${i + 1}`, quoted: true };
    } else at += field.length + 1;
  }
  return { quoted };
}

/**
 * The rows of `text` (blank ones left out), each with the line where it starts, read by csv-parse.
 * A row with a field that starts with a quote, or a lone field of spaces, is checked against its
 * own raw text (checkQuotes); a quote never closed is said by the exact pass.
 */
function splitRows(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  let bytes: Buffer | undefined; // the text as UTF-8, made only when a row needs its raw text
  const rawText = (from: number, to?: number): string => (bytes ??= Buffer.from(text, 'utf8')).subarray(from, to).toString('utf8');
  /** Where the previous row ended: its last line and the byte after it. */
  let endLine = 0;
  let endByte = 0;
  /** Set once the exact pass has read the rest of the file. */
  let done = false;
  parse(text, {
    ...COMMON,
    on_record: (fields: string[], ctx) => {
      if (done) return null;
      const line = endLine + 1;
      const oneField = fields.length === 1 && BLANK.test(fields[0]!);
      if (oneField || fields.some((f) => f.charCodeAt(0) === 0x22)) {
        const { error, quoted } = checkQuotes(rawText(endByte, ctx.bytes), fields);
        if (error) rows.push({ line, fields, error });
        else if (quoted || !oneField) rows.push({ line, fields });
      } else rows.push({ line, fields });
      endLine = ctx.lines;
      endByte = ctx.bytes;
      return null;
    },
    on_skip: () => {
      // The exact pass says what is wrong, and reads the rest of the file (a quote never closed,
      // the one error relaxed quoting leaves, runs to its end anyway).
      if (!done) rows.push(...exactRows(rawText(endByte), endLine + 1).filter((r) => !r.blank));
      done = true;
    },
  });
  return rows;
}

export function parseCsv(text: string): CsvRecord[] {
  const rows = splitRows(withoutByteOrderMark(text));
  const header = rows.shift();
  if (!header) return [];
  if (header.error) return [{ line: header.line, value: undefined, error: header.error }];
  const names = header.fields.map((f) => f.trim());
  // A field named twice would silently take its last column's value. (Unnamed columns, such as a
  // spreadsheet's trailing empty ones, are left to the row check: a value under one is refused there.)
  const twice = names.find((n, i) => n !== '' && names.indexOf(n) !== i);
  if (twice !== undefined) return [{ line: header.line, value: undefined, error: `the header names ${twice} twice` }];
  return rows.map(({ line, fields, error }) => {
    if (error) return { line, value: undefined, error };
    if (fields.length !== names.length)
      return { line, value: undefined, error: `has ${fields.length} fields, the header names ${names.length}` };
    const value: Record<string, string> = {};
    names.forEach((n, i) => {
      if (fields[i] !== '') value[n] = fields[i]!;
    });
    return { line, value };
  });
}
