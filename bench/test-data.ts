import { writeFileSync } from 'node:fs';

/**
 * Deterministic bench data: identities spread over 16 first names x 997 suffixes (so `and` matches
 * about 6% and `maría5` is rare), and imported transactions over every benchmark class.
 */
const FIRST = [
  'Ana',
  'Andrés',
  'Bruno',
  'Carla',
  'Diego',
  'Elena',
  'Fabio',
  'Gina',
  'Hugo',
  'Inés',
  'Jorge',
  'Karla',
  'Luis',
  'María',
  'Nora',
  'Óscar',
];
const LAST = ['García', 'López', 'Martínez', 'Smith', 'Nguyen', 'Silva', 'Rossi', 'Müller', 'Kim', 'Diaz', 'Santos', 'Reyes'];

export function writeIdentitiesJsonl(file: string, n: number): void {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const firstName = `${FIRST[i % FIRST.length]}${i % 997}`;
    const lastName = `${LAST[(i * 7) % LAST.length]}${i % 389}`;
    const email = `${firstName}.${lastName}.${i}@example.com`
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();
    lines.push(JSON.stringify({ type: i % 5 === 0 ? 'Business' : 'Personal', data: { firstName, lastName, email } }));
  }
  writeFileSync(file, lines.join('\n') + '\n');
}

const TYPES = ['Deposit', 'Withdrawal', 'Exchange'];
const STATUSES = ['Submitted', 'Completed', 'Failed'];
const BENCHMARKS = ['Competitive', 'InLine', 'OffMarket', 'Calibrating', 'Syncing', 'Stale'];
const COUNTRIES = ['MX', 'AR', 'BR', 'CO', 'US'];

export function writeTransactionsJsonl(file: string, n: number): void {
  const lines: string[] = [];
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < n; i++) {
    const benchmark = BENCHMARKS[i % BENCHMARKS.length]!;
    const inSample = i % BENCHMARKS.length < 3;
    lines.push(
      JSON.stringify({
        type: TYPES[i % TYPES.length],
        status: STATUSES[i % STATUSES.length],
        amountUsd: `${100 + (i % 9973)}.${String(i % 100).padStart(2, '0')}`,
        createdAt: new Date(start + i * 60_000).toISOString(),
        provider: `pfi-${i % 7}`,
        providerTransactionId: `ptx-${i}`,
        currency: 'USDC',
        country: COUNTRIES[i % COUNTRIES.length],
        benchmark,
        ...(inSample ? { costVsMarketUsd: `${(i % 41) - 20}.${String(i % 97).padStart(2, '0')}` } : {}),
      }),
    );
  }
  writeFileSync(file, lines.join('\n') + '\n');
}
