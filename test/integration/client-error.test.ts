import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startBorderd } from '../support/process.js';

/** Sends raw bytes to the daemon and reads the whole answer (it closes the connection). */
function raw(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(request);
  });
}

function parse(answer: string) {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [status = '', ...headers] = head.split('\r\n');
  const h = Object.fromEntries(headers.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status, headers: h, body: JSON.parse(body) as Record<string, unknown> };
}

describe('requests refused by the HTTP parser (real process)', () => {
  it('are answered as problem JSON with a request id (431, 400), and the daemon goes on answering', async () => {
    const daemon = await startBorderd();
    try {
      const big = parse(await raw(daemon.url, `GET /v1/identities HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`));
      expect(big.status).toBe('HTTP/1.1 431 Request Header Fields Too Large');
      expect(big.headers['content-type']).toBe('application/problem+json');
      expect(big.headers['x-request-id']).toMatch(/^req_/);
      expect(big.body).toMatchObject({
        status: 431,
        code: 'headers_too_large',
        type: 'urn:borderd:problem:headers_too_large',
        requestId: big.headers['x-request-id'],
      });

      const length = parse(await raw(daemon.url, 'POST /v1/auth/m2m/token HTTP/1.1\r\nhost: x\r\ncontent-length: abc\r\n\r\n{}'));
      expect(length.status).toBe('HTTP/1.1 400 Bad Request');
      expect(length.body).toMatchObject({ status: 400, code: 'malformed_request' });

      expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
    } finally {
      await daemon.stop();
    }
  });
});
