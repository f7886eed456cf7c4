/** One benchmark's printed table: metric, measured value, unit, and the target or comparison. */
export interface Row {
  metric: string;
  value: number | string;
  unit?: string;
  note?: string;
}

export function printTable(title: string, rows: readonly Row[], write: (s: string) => void = (s) => process.stdout.write(s)): void {
  const cells = rows.map((r) => [
    r.metric,
    typeof r.value === 'number' ? r.value.toLocaleString('en-US', { maximumFractionDigits: 2 }) : r.value,
    r.unit ?? '',
    r.note ?? '',
  ]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...cells.map((c) => c[i]!.length), ['metric', 'value', 'unit', 'note'][i]!.length));
  const line = (c: string[]) =>
    `  ${c[0]!.padEnd(widths[0]!)}  ${c[1]!.padStart(widths[1]!)}  ${c[2]!.padEnd(widths[2]!)}  ${c[3]!}`.trimEnd();
  write(`\n${title}\n`);
  write(line(['metric', 'value', 'unit', 'note']) + '\n');
  write(line(widths.map((w) => '-'.repeat(w))) + '\n');
  for (const c of cells) write(line(c) + '\n');
}
