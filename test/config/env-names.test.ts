import { describe, expect, it } from 'vitest';
import { unknownEnvWarnings } from '../../src/config/env-names.js';

describe('unknown BORDERD_* environment names', () => {
  it('warns for each name borderd does not read, with the nearest one it does', () => {
    expect(
      unknownEnvWarnings({
        BORDERD_DELIVERY_TIMOUT_MS: '5000',
        BORDERD_MASTERKEY: 'x',
        BORDERD_ZZZ: '1',
        BORDERD_DELIVERY_TIMEOUT_MS: '5000',
        BORDERD_DB: 'x.db',
        BORDERD_CLIENT_SECRET: 's',
        BORDERD_TEST_BACKEND: 'postgres',
        HOME: '/root',
      }),
    ).toEqual([
      'environment variable BORDERD_DELIVERY_TIMOUT_MS is not a borderd setting and is ignored; did you mean BORDERD_DELIVERY_TIMEOUT_MS?',
      'environment variable BORDERD_MASTERKEY is not a borderd setting and is ignored; did you mean BORDERD_MASTER_KEY?',
      'environment variable BORDERD_ZZZ is not a borderd setting and is ignored',
    ]);
  });

  it('knows every name a config key has, the short ones and those the commands read', () => {
    expect(
      unknownEnvWarnings({
        BORDERD_SERVER_PORT: '1',
        BORDERD_PORT: '1',
        BORDERD_WEBHOOKS_ALLOW_HTTP: 'true',
        BORDERD_URL: 'http://127.0.0.1:8080',
        BORDERD_WEBHOOK_SECRET: 'whsec_x',
        BORDERD_KEY_PASSPHRASE: 'p',
        BORDERD_CLI_LOG_LEVEL: 'info',
      }),
    ).toEqual([]);
  });
});
