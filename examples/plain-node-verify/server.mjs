// Verifying borderd webhooks with nothing but node:http and borderd/verify (no framework).
// Run: PUBLIC_KEY_FILE=public.pem PORT=3001 node examples/plain-node-verify/server.mjs
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from 'borderd/verify';

const publicKey = readFileSync(process.env.PUBLIC_KEY_FILE ?? 'public.pem', 'utf8');

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    // Verify the exact bytes received: never JSON.parse then re-stringify before verifying.
    const raw = Buffer.concat(chunks);
    try {
      const event = verifyWebhook(raw, req.headers, publicKey);
      console.log(`verified ${event.type} ${event.id}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: event.id }));
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      // invalid_public_key: this server's own key file is unreadable, not the sender's fault. A 5xx
      // makes borderd retry, so nothing is lost while the file is fixed; a 400 would say "bad delivery".
      const status = err.code === 'invalid_public_key' ? 500 : 400;
      console.log(`refused: ${err.code}`);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: err.code }));
    }
  });
});

server.listen(Number(process.env.PORT ?? 3001), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/`);
});
process.on('SIGTERM', () => server.close());
