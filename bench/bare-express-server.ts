/**
 * The comparison server of the API benchmark: express 5 with no middleware and one route that
 * answers a fixed JSON body (the daemon's own answer, captured by the benchmark). Run as a child
 * process so it does not share the benchmark's event loop: node dist/bench/bare-express-server.js BODY_FILE
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express from 'express';

const body: unknown = JSON.parse(readFileSync(process.argv[2]!, 'utf8'));
const app = express();
app.get('/v1/identities', (_req, res) => {
  res.json(body);
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
