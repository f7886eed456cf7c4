// The local app of the tunnel example: `borderd receive --tunnel` pulls events from a remote
// borderd and posts them here, signed exactly as a direct delivery would be.
// Run: PUBLIC_KEY_FILE=public.pem PORT=3002 node examples/tunnel/app.mjs
//      borderd receive --tunnel https://borderd.example.com --forward-to http://127.0.0.1:3002/webhooks
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fetchPublicKey, verifyWebhook } from 'borderd/verify';

// A key file, or the key fetched from borderd (GET /v1/notifications/webhooks/settings/public-key)
// and fetched again after a rotation.
const verify = process.env.PUBLIC_KEY_FILE
  ? (
      (key) => async (raw, headers) =>
        verifyWebhook(raw, headers, key)
    )(readFileSync(process.env.PUBLIC_KEY_FILE, 'utf8'))
  : (
      (source) => (raw, headers) =>
        source.verify(raw, headers)
    )(
      fetchPublicKey(process.env.BORDERD_URL ?? 'http://127.0.0.1:8080', {
        clientId: process.env.BORDERD_CLIENT_ID ?? '',
        clientSecret: process.env.BORDERD_CLIENT_SECRET ?? '',
      }),
    );

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    try {
      const event = await verify(Buffer.concat(chunks), req.headers);
      console.log(`received ${event.type} ${event.id} (attempt ${req.headers['x-delivery-attempt']})`);
      res.writeHead(204).end();
    } catch (err) {
      console.log(`refused: ${err.code ?? err.message}`);
      res.writeHead(400).end();
    }
  });
});

server.listen(Number(process.env.PORT ?? 3002), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/webhooks`);
});
process.on('SIGTERM', () => server.close());
