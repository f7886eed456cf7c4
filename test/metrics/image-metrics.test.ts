import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../src/config/load.js';
import { startDaemon } from '../../src/daemon.js';
import { dockerEnv } from '../support/dockerfile.js';
import { makeContext } from '../support/context.js';
import { ROOT } from '../support/process.js';

describe('/metrics in the Docker image and the compose example', () => {
  it('is on a port of its own, so the published API port never answers it', async () => {
    const image = loadConfig({ env: dockerEnv() });
    expect(image.metrics.enabled).toBe(true);
    expect(image.metrics.port).toBe(9464);
    expect(image.metrics.port).not.toBe(image.server.port);

    // The image's metrics settings, on free loopback ports: the API's port answers 404 for /metrics.
    const daemon = await startDaemon(
      await makeContext({ 'server.port': 0, 'metrics.port': image.metrics.port === undefined ? undefined : 0 }),
    );
    try {
      expect((await fetch(`${daemon.url}/metrics`)).status).toBe(404);
      expect(daemon.metricsUrl).toBeDefined();
      expect(daemon.metricsUrl).not.toContain(daemon.url);
      expect(await (await fetch(daemon.metricsUrl!)).text()).toContain('borderd_http_requests_total');
    } finally {
      await daemon.close();
    }
  });

  it('compose keeps the image metrics port and publishes only the proxy', () => {
    const compose = parseYaml(readFileSync(join(ROOT, 'examples/compose/compose.yaml'), 'utf8')) as {
      services: Record<string, { environment?: Record<string, string>; ports?: string[] }>;
    };
    const nodes = Object.entries(compose.services).filter(([name]) => name.startsWith('borderd'));
    expect(nodes.length).toBeGreaterThan(0);
    for (const [, node] of nodes) {
      const config = loadConfig({
        env: { ...dockerEnv(), ...node.environment, BORDERD_DB: '', BORDERD_DATABASE_URL: 'postgres://u:p@db/borderd' },
      });
      expect(config.metrics.port).toBe(9464);
      expect(node.ports).toBeUndefined();
    }
    const published = Object.values(compose.services).flatMap((s) => s.ports ?? []);
    expect(published).toEqual(['8080:8080']);
  });
});
