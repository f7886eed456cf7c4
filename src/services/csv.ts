/**
 * RFC 4180 CSV: a header row names the fields; quoted fields may hold commas, doubled quotes and
 * newlines. Each record carries the line where it starts; a row with the wrong number of fields, a
 * quoted field never closed and a header naming a field twice are reported on their line instead
 * of being guessed at.
 */
export interface CsvRecord {
  line: number;
  value: Record<string, string> | undefined;
  error?: string;
}

interface CsvRow {
  line: number;
  fields: string[];
  /** Set on the last row when a quoted field is still open at the end of the text. */
  error?: string;
}

function splitRows(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  let started = false;
  let quoteLine = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        field += c;
      }
      continue;
    }
    if (c === '"' && field === '') (quoted = true), (started = true), (quoteLine = line);
    else if (c === ',') fields.push(field), (field = ''), (started = true);
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      if (started || field !== '') rows.push({ line: rowLine, fields: [...fields, field] });
      fields = [];
      field = '';
      started = false;
      line++;
      rowLine = line;
    } else (field += c), (started = true);
  }
  // An open quote would otherwise make the rest of the file one field's value.
  if (quoted) rows.push({ line: rowLine, fields: [...fields, field], error: `the quoted field opened on line ${quoteLine} is never closed` });
  else if (started || field !== '') rows.push({ line: rowLine, fields: [...fields, field] });
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
    if (fields.length !== names.length) return { line, value: undefined, error: `has ${fields.length} fields, the header names ${names.length}` };
    const value: Record<string, string> = {};
    names.forEach((n, i) => {
      if (fields[i] !== '') value[n] = fields[i]!;
    });
    return { line, value };
  });
}
