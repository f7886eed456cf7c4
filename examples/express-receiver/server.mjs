// An express app that receives borderd webhooks through createWebhookMiddleware.
// Run: PUBLIC_KEY_FILE=public.pem node examples/express-receiver/server.mjs
//  or: BORDERD_URL=http://127.0.0.1:8080 BORDERD_CLIENT_ID=… BORDERD_CLIENT_SECRET=… node examples/express-receiver/server.mjs
import { readFileSync } from 'node:fs';
import express from 'express';
import { createWebhookMiddleware } from 'borderd/verify';

const keyOptions = process.env.PUBLIC_KEY_FILE
  ? { publicKey: readFileSync(process.env.PUBLIC_KEY_FILE, 'utf8') }
  : {
      publicKeyUrl: process.env.BORDERD_URL ?? 'http://127.0.0.1:8080',
      credentials: { clientId: process.env.BORDERD_CLIENT_ID ?? '', clientSecret: process.env.BORDERD_CLIENT_SECRET ?? '' },
    };

const seen = new Set(); // in a real app: a unique index on the event id in your database

const app = express();
// The middleware reads the raw body itself: do not mount express.json() in front of this route.
app.post('/webhooks', createWebhookMiddleware(keyOptions), (req, res) => {
  const event = req.webhookEvent;
  if (seen.has(event.id)) return res.json({ received: event.id, duplicate: true });
  seen.add(event.id);
  switch (event.type) {
    case 'Transaction_Created':
    case 'Transaction_Updated':
      console.log(`${event.type} ${event.id}: transaction ${event.data.id} is ${event.data.status}`);
      break;
    default:
      console.log(`${event.type} ${event.id}`);
  }
  res.json({ received: event.id, type: event.type });
});

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/webhooks`);
});
process.on('SIGTERM', () => server.close());
