/**
 * RFC 4180 CSV: a header row names the fields; quoted fields may hold commas, doubled quotes and
 * newlines. Each record carries the line where it starts; a row with the wrong number of fields, a
 * quoted field never closed or followed by text before its comma, and a header naming a field twice
 * are reported on their line instead of being guessed at. Empty lines and lines of only spaces or
 * tabs are skipped.
 *
 * @module services/csv
 */
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

function splitRows(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  /** The field's closing quote was just read: only a comma or the line's end may follow. */
  let afterQuote = false;
  let hadQuote = false;
  let error: string | undefined;
  let line = 1;
  let rowLine = 1;
  let quoteLine = 1;
  const endRow = (): void => {
    // A line of nothing but spaces or tabs is skipped, as an empty line is.
    const blank = fields.length === 0 && !hadQuote && /^[ \t]*$/.test(field);
    if (!blank) rows.push(error ? { line: rowLine, fields: [...fields, field], error } : { line: rowLine, fields: [...fields, field] });
    fields = [];
    field = '';
    afterQuote = hadQuote = false;
    error = undefined;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
        afterQuote = true;
      } else {
        if (c === '\n') line++;
        field += c;
      }
      continue;
    }
    if (c === ',') {
      fields.push(field);
      field = '';
      afterQuote = false;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
      line++;
      rowLine = line;
    } else if (afterQuote) {
      // "abc"def: RFC 4180 has no such field; keeping "abcdef" would be a guess.
      error ??= `text follows the closing quote of field ${fields.length + 1}`;
      field += c;
    } else if (c === '"' && field === '') {
      quoted = true;
      hadQuote = true;
      quoteLine = line;
    } else field += c;
  }
  // An open quote would otherwise make the rest of the file one field's value.
  if (quoted) error = `the quoted field opened on line ${quoteLine} is never closed`;
  endRow(); // the last line, when it has no line end (an empty one is skipped there)
  return rows;
}

export function parseCsv(text: string): CsvRecord[] {
  const rows = splitRows(text);
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
