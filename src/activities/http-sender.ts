import { isIP } from 'node:net';
import { request } from 'undici';
import { isForbiddenAddress, type Cidr } from '../policy/address.js';
import { responseErrorCode } from '../policy/classify.js';
import { checkEndpointUrl } from '../policy/url-check.js';
import type { SendRequest, SendResult, SentRequest } from '../shared/delivery-types.js';
import type { TransformedRequest } from '../transform/expression.js';
import { secretProblem, standardWebhookHeaders } from '../signing/standard-webhooks.js';
import { forwardBodyBytes, forwardHeaderList } from '../inbound/forward-request.js';
import { overrideHeaderList, transformForSend, TRANSFORM_BUSY_RETRY_MS, type Transformer } from '../transform/send.js';
import { boundBody, type BoundedBody } from './bounded-body.js';
import { untilDeadline } from './attempt-deadline.js';
import { createDnsResolve, type Resolver } from './dns-resolve.js';
import { errorCodeFor } from './error-codes.js';
import type { PinnedDispatchers } from './pinned-dispatcher.js';

export const RESPONSE_SNIPPET_BYTES = 512;
/**
 * Issue 14.16: how much of a transformed body each attempt row keeps. Every attempt's row
 * is in the delivery's history (and carried across continue-as-new), so it is bounded.
 */
export const SENT_BODY_LOG_BYTES = 4096;
// Read at most this much of a response so the connection can be reused; drop the rest.
const DRAIN_LIMIT_BYTES = 64 * 1024;

export interface HttpSenderDeps {
  dispatchers: PinnedDispatchers;
  allowAddresses: Cidr[];
  allowHttpHosts: string[];
  /** Issue 13.3: Herald's own ports (src/own-ports.ts), refused even on allowHttpHosts. */
  reservedPorts?: readonly number[];
  now: () => Date;
  resolve?: Resolver;
  userAgent?: string;
  /** R-RH-TRANSFORM: evaluates targets' transformations; without it they fail. */
  transformer?: Transformer;
}

// Exported for the API's save-time address check (issue 14.9): one resolver for both.
export const defaultResolve: Resolver = createDnsResolve();

class DnsTimeout extends Error {}

/** One Herald attempt: at most one HTTP request, or a refusal with nothing sent. */
export function createHttpSender(deps: HttpSenderDeps) {
  const resolve = deps.resolve ?? defaultResolve;

  return async function send(req: SendRequest): Promise<SendResult> {
    const startedAt = deps.now();
    const t0 = performance.now();
    const done = (r: Omit<SendResult, 'startedAt' | 'finishedAt' | 'latencyMs'>): SendResult => ({
      startedAt: startedAt.toISOString(),
      finishedAt: deps.now().toISOString(),
      latencyMs: Math.round(performance.now() - t0),
      ...r,
    });

    // R-URL is checked again at send time: a stored URL may predate a stricter rule.
    const checked = checkEndpointUrl(req.target.url, {
      allowInsecureHosts: deps.allowHttpHosts,
      reservedPorts: deps.reservedPorts,
    });
    if (!checked.ok) return done({ code: checked.code, notSent: true });
    const url = checked.url;
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;

    // R-RH-TRANSFORM: before anything is sent or signed. A failure is a failed attempt with
    // nothing sent, never the untransformed body; all evaluators busy is a deferral.
    const t = await transformForSend(deps.transformer, req);
    if (t.kind === 'failed') return done({ code: 'transformation_failed', notSent: true, detail: t.reason });
    if (t.kind === 'busy')
      return done({ notSent: true, deferral: { code: 'transformation_busy', retryInMs: TRANSFORM_BUSY_RETRY_MS } });
    const transformed = t.kind === 'ok' ? t.request : undefined;
    const body = transformed?.body ?? req.event.body;
    const sent = transformed && sentRequestOf(transformed, req.event.body);

    const timeoutMs = req.timeoutSeconds * 1000;
    const abort = AbortSignal.timeout(timeoutMs);

    let address: string;
    let family: number;
    if (isIP(hostname)) {
      address = hostname;
      family = isIP(hostname);
    } else {
      try {
        const found = await Promise.race([
          resolve(hostname),
          new Promise<never>((_, reject) => abort.addEventListener('abort', () => reject(new DnsTimeout())),
          ),
        ]);
        const first = found[0];
        if (!first) return done({ code: 'dns_failed', notSent: true });
        address = first.address;
        family = first.family;
      } catch {
        // Both a failed and a too-slow lookup are `dns_failed` (R-TIMEOUT), never `timeout`.
        return done({ code: 'dns_failed', notSent: true });
      }
    }
    if (isForbiddenAddress(address, deps.allowAddresses)) return done({ code: 'private_address', notSent: true });

    const timestamp = Math.floor(deps.now().getTime() / 1000);
    // R-RH-INBOUND: a forward keeps the sender's headers and bytes and is not re-signed.
    const forward = req.target.forward;
    const fwdHeaders = forward && forwardHeaderList(forward, req.deliveryIdHeader, req.deliveryId, req.attempt);
    let headers: Record<string, string> | string[];
    try {
      headers = fwdHeaders
        ? transformed
          ? overrideHeaderList(fwdHeaders, transformed.headers)
          : fwdHeaders
        : {
            'content-type': 'application/json',
            'user-agent': deps.userAgent ?? 'Herald-Webhooks/0.1',
            ...transformed?.headers,
            // The signature covers the exact body sent: the transformed one when there is one.
            ...standardWebhookHeaders({
              secrets: req.target.secrets,
              msgId: req.event.id,
              timestampSeconds: timestamp,
              body,
            }),
            [req.deliveryIdHeader.toLowerCase()]: `${req.deliveryId}:${req.attempt}`,
            'idempotency-key': req.deliveryId,
          };
    } catch (err) {
      // A secret (or id) the signer refuses fails this attempt with nothing sent. Thrown, it
      // would fail the activity instead, which spends no attempt and repeats forever. The
      // code is the API's for the same secret; the signer's messages never hold the secret.
      const badSecret = req.target.secrets.some((s) => secretProblem(s) !== undefined);
      return done({ code: badSecret ? 'invalid_secret' : 'signing_failed', notSent: true, detail: (err as Error).message });
    }

    try {
      const res = await untilDeadline(
        request(url, {
          method: transformed?.method ?? 'POST',
          headers,
          body: forward && !transformed ? forwardBodyBytes(req.event.body, forward.bodyEncoding) : body,
          // R-TIMEOUT (issue 14.13): a pool whose connect timeout is this attempt's timeout.
          dispatcher: deps.dispatchers.get(hostname, address, family, timeoutMs),
          signal: abort,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        }),
        abort,
      );
      const snippet = await readSnippet(res.body);
      const status = res.statusCode;
      const retryAfter = res.headers['retry-after'];
      const ok = status >= 200 && status < 300;
      return done({
        httpStatus: status,
        code: ok ? undefined : responseErrorCode(status),
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        responseBody: snippet.body,
        ...(snippet.encoding ? { responseBodyEncoding: snippet.encoding } : {}),
        ...(sent ? { sent } : {}),
      });
    } catch (err) {
      // The request may have left (a reset after the body, a timeout): log what it carried.
      return done({ code: errorCodeFor(err), ...(sent ? { sent } : {}) });
    }
  };
}

/**
 * Issue 14.16: the transformed request for the attempt log, only when it differs from the
 * stored event (a plain delivery's history does not grow), its body bounded.
 */
function sentRequestOf(t: TransformedRequest, eventBody: string): SentRequest | undefined {
  if (t.body === eventBody && t.method === 'POST') return undefined;
  const bytes = Buffer.from(t.body, 'utf8');
  const kept = boundBody(bytes, SENT_BODY_LOG_BYTES);
  return {
    body: kept.body,
    bytes: bytes.length,
    ...(kept.truncated ? { truncated: true as const } : {}),
    ...(t.method !== 'POST' ? { method: t.method } : {}),
  };
}

/** R-RESP: the first 512 bytes of the response, never a split character (issue 14.12). */
async function readSnippet(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<BoundedBody> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let seen = 0;
  for await (const chunk of body) {
    if (keptBytes < RESPONSE_SNIPPET_BYTES) {
      const part = chunk.subarray(0, RESPONSE_SNIPPET_BYTES - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
    seen += chunk.length;
    if (seen > DRAIN_LIMIT_BYTES) {
      body.destroy();
      break;
    }
  }
  return boundBody(Buffer.concat(kept), RESPONSE_SNIPPET_BYTES, seen);
}
