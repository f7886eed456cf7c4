/**
 * examples/compose: every BORDERD_* setting its nodes get is one borderd knows, and the nodes'
 * environment (with the .env values filled in) is a configuration borderd accepts, on PostgreSQL.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { envLayer, loadConfig } from '../../src/config/load.js';

const compose = parse(readFileSync(new URL('../../examples/compose/compose.yaml', import.meta.url), 'utf8')) as {
  'x-borderd': { environment: Record<string, string> };
  services: Record<string, unknown>;
};

describe('examples/compose', () => {
  it('gives two borderd nodes the same database, master key and admin token, each a setting borderd knows', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['borderd-1', 'borderd-2', 'postgres', 'proxy']);
    const env = Object.fromEntries(
      Object.entries(compose['x-borderd'].environment).map(([k, v]) => [
        k,
        String(v)
          .replace('${POSTGRES_PASSWORD:?set it in .env}', 'pw')
          .replace('${BORDERD_MASTER_KEY:?set it in .env}', Buffer.alloc(32, 7).toString('base64'))
          .replace('${BORDERD_ADMIN_TOKEN:?set it in .env}', 'admin-token-0123456789abcdef0123'),
      ]),
    );
    const known = envLayer(env).sources;
    const named = Object.keys(env).filter((k) => k.startsWith('BORDERD_') && env[k] !== '');
    expect(named.filter((k) => ![...known.values()].includes(`environment variable ${k}`))).toEqual([]);
    // The image sets BORDERD_DB; the example empties it, or the two databases would be refused together.
    const config = loadConfig({ env: { BORDERD_DB: '/data/borderd.db', ...env } });
    expect(config.database.url).toBe('postgres://borderd:pw@postgres:5432/borderd');
    expect(config.database.pool.max).toBe(10);
  });
});
