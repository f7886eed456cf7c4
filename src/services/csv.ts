/**
 * RFC 4180 CSV: a header row names the fields; quoted fields may hold commas, doubled quotes and
 * newlines. Each record carries the line where it starts; a row with the wrong number of fields is
 * reported on its line instead of being guessed at.
 */
export interface CsvRecord {
  line: number;
  value: Record<string, string> | undefined;
  error?: string;
}

function splitRows(text: string): { line: number; fields: string[] }[] {
  const rows: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  let started = false;
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
    if (c === '"' && field === '') (quoted = true), (started = true);
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
  if (started || field !== '') rows.push({ line: rowLine, fields: [...fields, field] });
  return rows;
}

export function parseCsv(text: string): CsvRecord[] {
  const rows = splitRows(text);
  const header = rows.shift();
  if (!header) return [];
  const names = header.fields.map((f) => f.trim());
  return rows.map(({ line, fields }) => {
    if (fields.length !== names.length) return { line, value: undefined, error: `has ${fields.length} fields, the header names ${names.length}` };
    const value: Record<string, string> = {};
    names.forEach((n, i) => {
      if (fields[i] !== '') value[n] = fields[i]!;
    });
    return { line, value };
  });
}
