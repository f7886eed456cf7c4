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
    expect(c.server.trustProxy).toEqual(['10.0.0.0/8']);
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
    expect(loadConfig({ env: { BORDERD_SERVER_TRUST_PROXY: '10.0.0.0/8, 192.0.2.1' } }).server.trustProxy).toEqual(['10.0.0.0/8', '192.0.2.1']);
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

describe('development.yaml documents every key', () => {
  it('names each leaf of the schema in its section', async () => {
    const { configSchema } = await import('../../src/config/schema.js');
    const { leafPaths } = await import('../../src/config/load.js');
    const text = readFileSync(new URL('../../config/development.yaml', import.meta.url), 'utf8');
    const missing = leafPaths(configSchema.shape).filter((path) => {
      const [section, ...rest] = path.split('.');
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
