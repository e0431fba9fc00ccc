import type { RouteHandler } from '@hono/zod-openapi';
import type { Client } from '@temporalio/client';
import type { IncomingMessage } from 'node:http';
import type { Config } from '../../config.js';
import { settingsFrom } from '../../settings.js';
import { createPolicyResolver } from '../../deliveries/policy-resolver.js';
import { storeBody } from '../../inbound/forward-request.js';
import { forwardInput, newForwardId, newRequestId } from '../../inbound/forwards.js';
import { IngestBatcher } from '../../inbound/ingest-batcher.js';
import { headerLookup, verifyInboundSignature } from '../../inbound/signature-verify.js';
import type { SourceCache } from '../../inbound/source-cache.js';
import { webhookForwardId, webhookRequestId } from '../../inbound/source-ids.js';
import type { SourceSnapshot } from '../../shared/source-types.js';
import { errorFields, log } from '../../observability/log.js';
import { router } from '../openapi.js';
import { fail } from '../problem.js';
import { TokenBuckets } from '../rate-limit.js';
import * as routes from './ingest.routes.js';

/** How much of an oversized body is read and dropped so the 413 reaches the sender. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Reads at most `max` bytes of the body; undefined when it is longer. The sender learns
 * of an oversized body without Herald buffering all of it.
 */
async function readLimited(req: Request, max: number): Promise<Uint8Array | undefined> {
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      // Read the rest and drop it (up to a bound): closing on unread data resets the
      // connection, and the sender would never see its 413.
      let dropped = total;
      while (dropped < DRAIN_LIMIT_BYTES) {
        const next = await reader.read();
        if (next.done) break;
        dropped += next.value.byteLength;
      }
      if (dropped >= DRAIN_LIMIT_BYTES) await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * The headers exactly as received: names in their spelling and order, repeats kept apart.
 * Under @hono/node-server the Node request is at hand; elsewhere (tests calling
 * `app.request`) the Fetch headers are the best there is.
 */
function receivedHeaders(env: unknown, req: Request): Array<[string, string]> {
  const incoming = (env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming?.rawHeaders) {
    const raw = incoming.rawHeaders;
    const out: Array<[string, string]> = [];
    for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
    return out;
  }
  return [...req.headers.entries()];
}

/**
 * Issue 13.8: the sender's own id of a request, when the signature covers it (Standard
 * Webhooks signs `{webhook-id}.{timestamp}.{body}`). An HMAC-of-body source's headers are
 * not signed: keying on them would let anyone holding one old signed body suppress a future
 * message by sending it first under that message's id.
 */
function signedMessageId(source: SourceSnapshot, header: (name: string) => string | undefined) {
  if (source.config.verification.kind !== 'standard_webhooks') return undefined;
  return header('webhook-id')?.trim() || undefined;
}

/**
 * R-RH-INBOUND: `POST /in/{ingestId}`, the public ingest URL. No API key: the unguessable
 * id and the source's signature check guard it. Answers 202 once every forward has been
 * durably started in Temporal, 200 to a repeat of a signed message already accepted, 401
 * for a bad signature, 404 for an unknown source, 413 for a body over the source's limit,
 * 429 over the source's rate, 503 when Temporal cannot answer.
 */
export function ingestRouter(deps: { client: Client; config: Config; sources: SourceCache }) {
  const app = router();
  const { client, config, sources } = deps;
  const resolve = createPolicyResolver(config);
  const batcher = new IngestBatcher(client, settingsFrom(config).taskQueue);
  // Issue 13.6: requests per source, in this process (see rate-limit.ts), keyed by public id.
  const rate = new TokenBuckets({
    ratePerSecond: config.HERALD_INGEST_RATE_PER_SECOND,
    burst: config.HERALD_INGEST_BURST,
  });

  const receive: RouteHandler<typeof routes.receive> = async (c) => {
    // The path holds the ingest id, a credential: it is never logged nor stored. The
    // forwards name the source by its public id.
    const ingestId = c.req.param('sourceId');
    let source: SourceSnapshot | undefined;
    try {
      source = await sources.get(ingestId);
    } catch (err) {
      // Not a 404: the sender must send again, not conclude the URL is dead.
      log.error('source lookup failed', errorFields(err));
      c.header('retry-after', '1');
      fail(
        503,
        'not_accepted',
        'The request was not accepted',
        'Herald cannot read its sources; send it again.',
      );
    }
    if (!source) fail(404, 'source_not_found', 'No such source');
    const sourceId = source.sourceId;
    const allowed = rate.take(sourceId, Date.now());
    if (!allowed.allowed) {
      const seconds = Math.max(1, Math.ceil(allowed.retryAfterMs / 1000));
      // The app's error handler answers through this context, so the header goes out with it.
      c.header('retry-after', String(seconds));
      fail(
        429,
        'rate_limited',
        'Too many requests for this source',
        `At most ${config.HERALD_INGEST_RATE_PER_SECOND} per second (bursts of ${config.HERALD_INGEST_BURST}); retry after ${seconds} s.`,
        { retryAfterSeconds: seconds },
      );
    }
    const max = source.config.maxBodyBytes;
    const declared = Number(c.req.header('content-length'));
    // A body declared far too big is refused unread; a smaller excess is read and dropped.
    if (Number.isFinite(declared) && declared > Math.max(max, DRAIN_LIMIT_BYTES))
      fail(413, 'payload_too_large', 'The body is too large', `At most ${max} bytes.`);
    const bytes = await readLimited(c.req.raw, max);
    if (!bytes) fail(413, 'payload_too_large', 'The body is too large', `At most ${max} bytes.`);

    const headers = receivedHeaders(c.env, c.req.raw);
    const header = headerLookup(headers);
    const verdict = verifyInboundSignature(
      source.config.verification,
      header,
      bytes,
      Math.floor(Date.now() / 1000),
    );
    if (!verdict.ok)
      fail(401, 'invalid_signature', 'The signature does not verify', verdict.detail, {
        reason: verdict.reason,
      });

    // Issue 13.8: a signed message's ids derive from its webhook-id, so a repeat (a replay
    // within the tolerance, or the sender's own retry) names the same forwards, which
    // Temporal refuses to start twice, on any API process, at no extra call.
    const messageId = signedMessageId(source, header);
    const requestId = messageId ? webhookRequestId(sourceId, messageId) : newRequestId();
    const now = new Date().toISOString();
    const stored = storeBody(bytes);
    const inputs = source.destinations.map((destination) =>
      forwardInput({
        forwardId: messageId
          ? webhookForwardId(sourceId, messageId, destination.destinationId)
          : newForwardId(),
        tenantId: source.tenantId,
        destination,
        policy: resolve('railhook', destination.policy, 'inbound'),
        request: { sourceId, requestId, receivedAt: now, headers, bodyEncoding: stored.bodyEncoding },
        body: stored.body,
        createdAt: now,
      }),
    );
    let started: number | undefined;
    try {
      ({ started } = await batcher.accept(inputs));
    } catch (err) {
      log.error('ingest not accepted', { source: sourceId, ...errorFields(err) });
      fail(503, 'not_accepted', 'The request was not accepted', 'Send it again.');
    }
    const forwards = inputs.map((i) => ({ id: i.deliveryId, destinationId: i.endpointId }));
    // Every forward already existed: a repeat. (Some new: the repeat completed a first
    // attempt that Temporal only partly took, which is a 202 like any acceptance.)
    if (messageId && inputs.length > 0 && started === 0)
      return c.json({ requestId, forwards, duplicate: true as const }, 200);
    return c.json({ requestId, forwards }, 202);
  };

  app.openapi(routes.receive, receive);
  return app;
}
