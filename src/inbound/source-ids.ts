import { createHash } from 'node:crypto';

/**
 * Issue 13.7: a source has two ids. The ingest id (`/in/src_<32 hex>`, from `newSourceId`)
 * is the credential of a `verification: none` source; the public id is derived from it and
 * is what Temporal indexes (the source workflow's id, the `HeraldEventType` of its forwards)
 * and what tenant routes address (`/v1/sources/{id}`, `?sourceId=`).
 *
 * A plain SHA-256 is enough here, no server key: the ingest id carries 128 random bits, so
 * nobody can search the hash's preimages, and a keyless derivation lets every API process
 * (and an operator) compute it with nothing to distribute or rotate. The domain prefix keeps
 * it apart from Herald's other derived ids.
 */
export function publicSourceId(ingestId: string): string {
  return `src_${sha256(`herald/source-public-id/v1\n${ingestId}`).slice(0, 32)}`;
}

/**
 * Issue 13.8: the ids of a request identified by its sender (a Standard Webhooks
 * `webhook-id`, covered by the signature). Derived, so a repeat of the message, on any API
 * process, names the same request and the same forwards, and Temporal's reject-duplicate
 * id policy refuses to start a forward twice: no extra round trip on the hot path.
 */
export function webhookRequestId(sourceId: string, webhookId: string): string {
  return `req_${sha256(`herald/webhook-request/v1\n${sourceId}\n${webhookId}`).slice(0, 24)}`;
}

export function webhookForwardId(sourceId: string, webhookId: string, destinationId: string): string {
  return `fwd_${sha256(`herald/webhook-forward/v1\n${sourceId}\n${webhookId}\n${destinationId}`).slice(0, 32)}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
