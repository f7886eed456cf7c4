import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { tempDir } from '../support/context.js';

function file(text: string): string {
  const path = join(tempDir(), 'borderd.yaml');
  writeFileSync(path, text);
  return path;
}

describe('config layers', () => {
  it('has development defaults', () => {
    const c = loadConfig({ env: {} });
    expect(c.server).toMatchObject({ host: '127.0.0.1', port: 8080, bodyLimitBytes: 1048576 });
    expect(c.database.path).toBe('./data/borderd.db');
    expect(c.auth.tokenTtlSeconds).toBe(3600);
    expect(c.webhooks).toMatchObject({ allowHttp: true, allowPrivateNetworks: true });
  });

  it('applies defaults < file < env < flags', () => {
    const path = file('server:\n  port: 9001\n  host: 0.0.0.0\nlog:\n  level: debug\nauth:\n  tokenTtlSeconds: 600\n');
    const env = { BORDERD_SERVER_PORT: '9002', BORDERD_LOG_LEVEL: 'warn' };
    const c = loadConfig({ file: path, env, flags: { 'server.port': 9003 } });
    expect(c.server.port).toBe(9003); // flag beats env and file
    expect(c.log.level).toBe('warn'); // env beats file
    expect(c.server.host).toBe('0.0.0.0'); // file beats default
    expect(c.auth.tokenTtlSeconds).toBe(600);
    expect(c.database.path).toBe('./data/borderd.db'); // default where nobody says
  });

  it('reads every leaf from its BORDERD_ name, lists as JSON', () => {
    const c = loadConfig({
      env: { BORDERD_DELIVERY_RETRY_SCHEDULE_SECONDS: '[0, 1, 2]', BORDERD_WEBHOOKS_ALLOW_HTTP: 'false', BORDERD_DB: '/x/y.db' },
    });
    expect(c.delivery.retryScheduleSeconds).toEqual([0, 1, 2]);
    expect(c.webhooks.allowHttp).toBe(false);
    expect(c.database.path).toBe('/x/y.db');
  });

  it('ignores undefined flags', () => {
    expect(loadConfig({ env: {}, flags: { 'server.port': undefined } }).server.port).toBe(8080);
  });

  it('stops on a bad value with one message naming the key and its source', () => {
    expect(() => loadConfig({ env: { BORDERD_SERVER_PORT: '70000' } })).toThrow(
      /invalid config: server\.port: .*65535.*environment variable BORDERD_SERVER_PORT/,
    );
    const path = file('log:\n  level: loud\n');
    expect(() => loadConfig({ file: path, env: {} })).toThrow(/log\.level: .*config file/);
  });

  it('refuses a user or password in alerts.webhookUrl instead of dropping it, without quoting it', () => {
    let message = '';
    try {
      loadConfig({ env: { BORDERD_ALERTS_WEBHOOK_URL: 'https://ops:hunter2-alerts@hooks.example.com/alerts' } });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/alerts\.webhookUrl: must not carry a user or password.*BORDERD_ALERTS_WEBHOOK_URL/);
    expect(message).not.toContain('hunter2-alerts');
    expect(message.split('\n')).toHaveLength(1);
    expect(loadConfig({ env: { BORDERD_ALERTS_WEBHOOK_URL: 'https://hooks.example.com/services/T0/B0/s3cret' } }).alerts.webhookUrl).toBe(
      'https://hooks.example.com/services/T0/B0/s3cret',
    );
  });

  it('refuses a deposit country that is not an ISO 3166-1 alpha-2 code, naming the entry', () => {
    expect(() => loadConfig({ file: file('network:\n  depositCountries: [MX, UK]\n'), env: {} })).toThrow(
      /network\.depositCountries\.1: is not an ISO 3166-1 alpha-2 country code/,
    );
    expect(loadConfig({ file: file('network:\n  depositCountries: [MX, GB]\n'), env: {} }).network.depositCountries).toEqual(['MX', 'GB']);
  });

  it('refuses unknown keys, so a typo is not silently ignored', () => {
    const path = file('server:\n  prot: 1\n');
    expect(() => loadConfig({ file: path, env: {} })).toThrow(/server: unknown key\(s\) prot/);
  });

  it('reports unreadable and non-YAML files as ConfigError', () => {
    expect(() => loadConfig({ file: '/nonexistent/borderd.yaml', env: {} })).toThrow(ConfigError);
    expect(() => loadConfig({ file: file('server: [unclosed'), env: {} })).toThrow(/not valid YAML/);
  });
});

describe('example config files', () => {
  const root = new URL('../../config/', import.meta.url).pathname;
  it('development.yaml is the built-in defaults written out', () => {
    expect(loadConfig({ file: join(root, 'development.yaml'), env: {} })).toEqual(loadConfig({ env: {} }));
  });
  it('production.yaml loads and is strict about callback URLs', () => {
    const c = loadConfig({ file: join(root, 'production.yaml'), env: {} });
    expect(c.webhooks).toMatchObject({ allowHttp: false, allowPrivateNetworks: false });
    // Every host trustProxy names may write X-Forwarded-For and the client-certificate header: the
    // example names single addresses, never a range a whole network shares.
    const proxies = c.server.trustProxy as string[];
    expect(proxies.length).toBeGreaterThan(0);
    for (const p of proxies) expect(p).toMatch(/^[\d.]+\/32$|^[\da-f:]+\/128$|^[\d.]+$|^[\da-f:]+$/i);
    expect(readFileSync(join(root, 'production.yaml'), 'utf8')).toMatch(/trustProxy:.*\n(?:\s+#.*\n)*?\s+#.*WARNING|trustProxy:.*WARNING/);
  });
});

describe('server.trustProxy', () => {
  const trust = (v: unknown) => loadConfig({ env: {}, flags: { 'server.trustProxy': v } }).server.trustProxy;
  it('is false by default', () => {
    expect(loadConfig({ env: {} }).server.trustProxy).toBe(false);
  });
  it('takes a hop count or proxy addresses / CIDR ranges', () => {
    expect(trust(1)).toBe(1);
    expect(trust(['10.0.0.0/8', '::1', 'loopback'])).toEqual(['10.0.0.0/8', '::1', 'loopback']);
    expect(loadConfig({ env: { BORDERD_SERVER_TRUST_PROXY: '10.0.0.0/8, 192.0.2.1' } }).server.trustProxy).toEqual([
      '10.0.0.0/8',
      '192.0.2.1',
    ]);
    expect(loadConfig({ env: { BORDERD_SERVER_TRUST_PROXY: '2' } }).server.trustProxy).toBe(2);
  });
  it('refuses true, naming the key and what to use instead', () => {
    expect(() => trust(true)).toThrow(ConfigError);
    expect(() => trust(true)).toThrow(/server\.trustProxy: true is refused: .*left-most X-Forwarded-For.*hop count.*CIDR/);
    const path = file('server:\n  trustProxy: true\n');
    expect(() => loadConfig({ file: path, env: {} })).toThrow(/server\.trustProxy: true is refused.*config file/);
    expect(() => loadConfig({ env: { BORDERD_SERVER_TRUST_PROXY: 'true' } })).toThrow(/server\.trustProxy/);
  });
  it('refuses a bad entry or a negative hop count', () => {
    expect(() => trust(['proxy.example.com'])).toThrow(/server\.trustProxy\.0: must be an IP address, a CIDR range/);
    expect(() => trust(['10.0.0.0/33'])).toThrow(/server\.trustProxy\.0/);
    expect(() => trust(-1)).toThrow(/server\.trustProxy/);
  });
});

describe('database.url (PostgreSQL)', () => {
  const URL_ = 'postgres://borderd:secret@db.internal:5432/borderd';

  it('takes a PostgreSQL URL, with the pool and TLS defaults, and a data directory of its own', () => {
    const c = loadConfig({ env: { BORDERD_DATABASE_URL: URL_, BORDERD_DATA_DIR: '/var/lib/borderd' } });
    expect(c.database.url).toBe(URL_);
    expect(c.database.pool).toEqual({ max: 10, idleTimeoutMs: 10_000, connectTimeoutMs: 5_000 });
    expect(c.database.tls).toEqual({});
    expect(c.dataDir).toBe('/var/lib/borderd');
    const tuned = loadConfig({
      env: {},
      flags: { 'database.url': URL_, 'database.pool.max': 4, 'database.tls.mode': 'verify-full', 'database.tls.caFile': '/etc/ca.pem' },
    });
    expect(tuned.database.pool.max).toBe(4);
    expect(tuned.database.tls).toEqual({ mode: 'verify-full', caFile: '/etc/ca.pem' });
    expect(loadConfig({ env: {} }).database.url).toBeUndefined();
    expect(loadConfig({ env: {} }).dataDir).toBeUndefined();
  });

  it('refuses a URL that is not PostgreSQL, and an unknown TLS mode', () => {
    expect(() => loadConfig({ env: { BORDERD_DATABASE_URL: 'mysql://db/borderd' } })).toThrow(/database\.url: must be a PostgreSQL URL/);
    expect(() => loadConfig({ env: { BORDERD_DATABASE_URL: 'postgres://db' } })).toThrow(/database\.url: must be a PostgreSQL URL/);
    expect(() => loadConfig({ env: {}, flags: { 'database.url': URL_, 'database.tls.mode': 'prefer' } })).toThrow(/database\.tls\.mode/);
  });

  it('refuses database.path and database.url together, naming where each came from', () => {
    expect(() => loadConfig({ env: { BORDERD_DATABASE_URL: URL_ }, flags: { 'database.path': '/x/y.db' } })).toThrow(
      /database\.path \(from the --db flag\) names a SQLite file and database\.url \(from environment variable BORDERD_DATABASE_URL\) a PostgreSQL database: give one of them/,
    );
    const path = file('database:\n  path: ./data/borderd.db\n');
    expect(() => loadConfig({ file: path, env: {}, flags: { 'database.url': URL_ } })).toThrow(
      /database\.path \(from config file .*borderd\.yaml\) names a SQLite file and database\.url \(from the --database-url flag\)/,
    );
    // The default path is no conflict: only one that is given.
    expect(loadConfig({ env: {}, flags: { 'database.url': URL_ } }).database.url).toBe(URL_);
  });
});

describe('development.yaml documents every key', () => {
  it('names each leaf of the schema in its section', async () => {
    const { configSchema } = await import('../../src/config/schema.js');
    const { leafPaths } = await import('../../src/config/load.js');
    const text = readFileSync(new URL('../../config/development.yaml', import.meta.url), 'utf8');
    const missing = leafPaths(configSchema.shape).filter((path) => {
      const [section, ...rest] = path.split('.');
      // A top-level key (dataDir) is a line of its own, commented out when it has no default.
      if (rest.length === 0) return !new RegExp(`^#?\\s*${section}:`, 'm').test(text);
      const start = text.search(new RegExp(`^${section}:`, 'm'));
      if (start < 0) return true;
      const rest0 = text.slice(start + 1);
      const nextSection = rest0.search(/\n\w+:/);
      const block = nextSection < 0 ? rest0 : rest0.slice(0, nextSection);
      return !new RegExp(`^\\s*#?\\s*${rest[0]}:`, 'm').test(block);
    });
    expect(missing).toEqual([]);
  });

  it('gives every key with a value a comment, on its line or the line above, in both example files', () => {
    for (const file of ['development.yaml', 'production.yaml']) {
      const lines = readFileSync(new URL(`../../config/${file}`, import.meta.url), 'utf8').split('\n');
      const bare = lines.filter((line, i) => {
        // A key with a value; a section or parent map (key: and nothing) is described by its children.
        if (!/^\s*[A-Za-z][\w-]*:\s*\S/.test(line) || line.includes('#')) return false;
        return !/^\s*#/.test(lines[i - 1] ?? '');
      });
      expect(bare, file).toEqual([]);
    }
  });
});

describe('durations fit a Node.js timer', () => {
  // Node fires a timer set above 2147483647 ms after 1 ms; SQLite reads a busy timeout above it as 0.
  const TIMER_MAX_MS = 2_147_483_647;
  const msKeys = async () => {
    const { configSchema } = await import('../../src/config/schema.js');
    const { leafPaths } = await import('../../src/config/load.js');
    return leafPaths(configSchema.shape).filter((path) => path.endsWith('Ms'));
  };

  it('refuses every *Ms key above 2147483647, naming the key and the limit', async () => {
    const keys = await msKeys();
    expect(keys).toEqual(expect.arrayContaining(['eventStream.heartbeatMs', 'delivery.timeoutMs', 'database.busyTimeoutMs']));
    for (const key of keys) {
      expect(() => loadConfig({ env: {}, flags: { [key]: TIMER_MAX_MS + 1 } }), key).toThrow(
        new RegExp(`invalid config: ${key.replaceAll('.', '\\.')}: `),
      );
    }
    expect(() => loadConfig({ env: { BORDERD_EVENT_STREAM_HEARTBEAT_MS: '3000000000' } })).toThrow(
      /eventStream\.heartbeatMs: must be at most 2147483647 ms .*environment variable BORDERD_EVENT_STREAM_HEARTBEAT_MS/,
    );
    expect(() => loadConfig({ env: { BORDERD_DATABASE_BUSY_TIMEOUT_MS: '3000000000' } })).toThrow(
      /database\.busyTimeoutMs: must be at most 2147483647 ms/,
    );
  });

  it('takes 2147483647 itself and keeps the defaults', async () => {
    for (const key of await msKeys()) {
      if (key === 'database.groupCommitWindowMs') continue; // bounded at 100 by its own rule
      if (key === 'nodes.heartbeatMs') continue; // at most a third of nodes.deadAfterMs, by its own rule
      expect(() => loadConfig({ env: {}, flags: { [key]: TIMER_MAX_MS } }), key).not.toThrow();
    }
    const c = loadConfig({ env: {} });
    expect(c.delivery).toMatchObject({ timeoutMs: 10_000, pollIntervalMs: 500, leaseMs: 60_000 });
    expect(c.eventStream).toMatchObject({ heartbeatMs: 15_000, pollIntervalMs: 400 });
    expect(c.database.busyTimeoutMs).toBe(5000);
    expect(c.server.shutdownGraceMs).toBe(10_000);
  });
});

describe('environment values follow the type of their key', () => {
  it('keeps a string key as the string given, however numeric it looks', () => {
    const c = loadConfig({
      env: {
        BORDERD_INBOUND_CLIENT_CERT_HEADER_NAME: 'x-ssl-client-verify',
        BORDERD_INBOUND_CLIENT_CERT_HEADER_VALUE: '0',
        BORDERD_SERVER_TRUST_PROXY: '1',
        BORDERD_ADMIN_TOKEN: '123456789012345678901234567890',
        BORDERD_INBOUND_PATH_NAME: '2024',
        BORDERD_AUTH_ISSUER: '1',
      },
    });
    expect(c.inbound.clientCertHeader).toEqual({ name: 'x-ssl-client-verify', value: '0' });
    expect(c.admin.token).toBe('123456789012345678901234567890');
    expect(c.inbound.pathName).toBe('2024');
    expect(c.auth.issuer).toBe('1');
    expect(loadConfig({ env: { BORDERD_AUTH_ISSUER: 'true' } }).auth.issuer).toBe('true');
  });

  it('still converts numbers, booleans and JSON for the keys that take them', () => {
    const c = loadConfig({
      env: {
        BORDERD_SERVER_PORT: '9002',
        BORDERD_ADMIN_BOOTSTRAP_ORGANIZATION: 'false',
        BORDERD_INBOUND_ICA_ORGANIZATIONS: '{"1234": "org_1"}',
      },
    });
    expect(c.server.port).toBe(9002);
    expect(c.admin.bootstrapOrganization).toBe(false);
    expect(c.inbound.icaOrganizations).toEqual({ '1234': 'org_1' });
  });

  it('reports what is wrong with the value, not that its type was guessed wrong', () => {
    expect(() => loadConfig({ env: { BORDERD_SERVER_PORT: '-5' } })).toThrow(/server\.port: Too small: expected number to be >=0 /);
    expect(() => loadConfig({ env: { BORDERD_ADMIN_TOKEN: '123' } })).toThrow(/admin\.token: must be at least 24 characters/);
    expect(() => loadConfig({ env: { BORDERD_SERVER_PORT: '1.5' } })).toThrow(/server\.port: Invalid input: expected int, received number/);
    expect(() => loadConfig({ env: { BORDERD_SERVER_PORT: 'http' } })).toThrow(
      /server\.port: Invalid input: expected number, received string/,
    );
  });
});

describe('a config error names where the bad value came from', () => {
  it('names the environment variable that set a list, for an item of it', () => {
    expect(() => loadConfig({ env: { BORDERD_DELIVERY_RETRY_SCHEDULE_SECONDS: '[0,5,-300]' } })).toThrow(
      /delivery\.retryScheduleSeconds\.2: .*\(from environment variable BORDERD_DELIVERY_RETRY_SCHEDULE_SECONDS\)$/,
    );
    const production = new URL('../../config/production.yaml', import.meta.url).pathname;
    expect(() => loadConfig({ file: production, env: { BORDERD_INBOUND_ALLOWLIST: '["203.0.113.0/24","203.0.113.300/24"]' } })).toThrow(
      /inbound\.allowlist\.1: .*\(from environment variable BORDERD_INBOUND_ALLOWLIST\)$/,
    );
    const proxies = file('server:\n  trustProxy: ["10.0.0.0/8", "192.0.2.1"]\n');
    expect(() => loadConfig({ file: proxies, env: { BORDERD_SERVER_TRUST_PROXY: '10.0.0.0/8, proxy.example.com' } })).toThrow(
      /server\.trustProxy\.1: .*\(from environment variable BORDERD_SERVER_TRUST_PROXY\)$/,
    );
  });

  it('names the variable that set half of a pair, for the missing half', () => {
    expect(() => loadConfig({ env: { BORDERD_INBOUND_CLIENT_CERT_HEADER_NAME: 'x-client-verify' } })).toThrow(
      /inbound\.clientCertHeader\.value: .*\(from environment variable BORDERD_INBOUND_CLIENT_CERT_HEADER_NAME\)$/,
    );
    const path = file('inbound:\n  clientCertHeader:\n    name: x-client-verify\n');
    expect(() => loadConfig({ file: path, env: {} })).toThrow(/inbound\.clientCertHeader\.value: .*\(from config file .*borderd\.yaml\)$/);
  });

  it('names the config file only for what the file sets', () => {
    const path = file('inbound:\n  allowlist: ["203.0.113.0/24", "203.0.113.300/24"]\n');
    expect(() => loadConfig({ file: path, env: {} })).toThrow(/inbound\.allowlist\.1: .*\(from config file .*borderd\.yaml\)$/);
    const other = file('server:\n  port: 9000\n');
    expect(() => loadConfig({ file: other, env: {}, flags: { 'inbound.allowlist': ['x'] } })).toThrow(
      /inbound\.allowlist\.0: .*\(from command-line flag\)$/,
    );
    expect(() => loadConfig({ file: other, env: {}, flags: { 'integrations.providers': { p: { deprecated: true } } } })).toThrow(
      /integrations\.providers\.p\.kind: .*\(from command-line flag\)$/,
    );
  });

  it('names the file for an unknown key, even where the environment sets a neighbour', () => {
    const path = file('inbound:\n  alowlist: []\n');
    expect(() => loadConfig({ file: path, env: { BORDERD_INBOUND_PATH_NAME: 'cards' } })).toThrow(
      /inbound: unknown key\(s\) alowlist \(from config file .*borderd\.yaml\)$/,
    );
  });
});

describe('a config file that is not YAML', () => {
  const yamlError = (text: string): string => {
    try {
      loadConfig({ file: file(text), env: {} });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('loaded');
  };

  it('is reported on one line with the line and column', () => {
    expect(yamlError('server:\n  port: [1\n  host: x\n')).toMatch(
      /^config file .*borderd\.yaml is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a \] \(line 3, column 3\)$/,
    );
    expect(yamlError('server:\n  port: 1\n  port: 2\n')).toMatch(
      /^config file .*borderd\.yaml is not valid YAML: Map keys must be unique \(line 3, column 3\)$/,
    );
    expect(yamlError('server:\n\tport: 1\n')).toMatch(/is not valid YAML: Tabs are not allowed as indentation \(line 2, column 1\)$/);
  });

  it('never spans more than one line', () => {
    for (const text of ['a: 1\n---\nb: 2\n', 'a: *nowhere\n', 'a: "open\n', 'a: [1, 2\nb: }\n', '- x\ny: 1\n']) {
      expect(yamlError(text), text).not.toContain('\n');
    }
  });
});

describe('retry delays stay dates', () => {
  it('refuses a retry delay over 30 days, naming the key', () => {
    expect(() => loadConfig({ env: { BORDERD_DELIVERY_RETRY_SCHEDULE_SECONDS: '[0, 1e13]' } })).toThrow(
      /delivery\.retryScheduleSeconds\.1: must be at most 2592000/,
    );
    expect(() => loadConfig({ env: { BORDERD_INBOUND_DECRYPT_RETRY_SECONDS: '[2592001]' } })).toThrow(
      /inbound\.decryptRetrySeconds\.0: must be at most 2592000/,
    );
    expect(loadConfig({ env: { BORDERD_DELIVERY_RETRY_SCHEDULE_SECONDS: '[0, 2592000]' } }).delivery.retryScheduleSeconds).toEqual([
      0, 2_592_000,
    ]);
  });
});

describe('a config with several errors', () => {
  it('names every one, one line each', () => {
    const path = file('server:\n  port: 70000\nlog:\n  level: loud\nbogus: 1\n');
    let err: unknown;
    try {
      loadConfig({ file: path, env: { BORDERD_DELIVERY_JITTER: '2' } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const lines = (err as Error).message.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^invalid config: server\.port: .*\(from config file /),
        expect.stringMatching(/^invalid config: log\.level: .*\(from config file /),
        expect.stringMatching(/^invalid config: delivery\.jitter: .*\(from environment variable BORDERD_DELIVERY_JITTER\)$/),
        expect.stringMatching(/^invalid config: \(top level\): unknown key\(s\) bogus /),
      ]),
    );
  });
});
