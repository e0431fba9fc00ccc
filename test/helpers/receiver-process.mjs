// A receiver in its own process, so its clock reads when a request arrived, not when a busy
// test process (which also runs a worker) got round to it. Rules come in RECEIVER_RULES:
// { "<path>": { "delayMs": 500, "failFirst": { "<webhook-id>": 3 } } }. GET /__log answers
// the requests seen: { at, done, path, webhookId, deliveryId, status }.
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import { setTimeout } from 'node:timers';

const rules = JSON.parse(process.env.RECEIVER_RULES ?? '{}');
const log = [];
const seen = new Map();
const server = createServer((req, res) => {
  if (req.url === '/__log') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(log));
    return;
  }
  const at = Date.now();
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const path = (req.url ?? '/').split('?')[0];
    const webhookId = String(req.headers['webhook-id'] ?? '');
    const rule = rules[path] ?? {};
    const n = (seen.get(webhookId) ?? 0) + 1;
    seen.set(webhookId, n);
    const fail = (rule.failFirst?.[webhookId] ?? 0) >= n;
    const status = fail ? 500 : 200;
    const entry = { at, path, webhookId, deliveryId: String(req.headers['idempotency-key'] ?? ''), status, body: Buffer.concat(chunks).toString() };
    log.push(entry);
    setTimeout(() => {
      entry.done = Date.now();
      res.writeHead(status).end(fail ? 'no' : 'ok');
    }, rule.delayMs ?? 0);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
