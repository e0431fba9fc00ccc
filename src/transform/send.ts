import type { SendRequest } from '../shared/delivery-types.js';
import type { TransformedRequest } from './expression.js';
import type { TransformOutcome } from './sandbox.js';

/** What the send path needs from the sandbox (tests may hand in their own). */
export interface Transformer {
  transform(
    expression: string,
    event: SendRequest['event'] & { headers?: Record<string, string> },
  ): Promise<TransformOutcome>;
}

/** How long a delivery waits when every evaluator is busy: a deferral, not an attempt (R-RH-DEFER). */
export const TRANSFORM_BUSY_RETRY_MS = 5_000;

export type SendTransform =
  | { kind: 'none' }
  | { kind: 'ok'; request: TransformedRequest }
  | { kind: 'failed'; reason: string }
  | { kind: 'busy'; reason: string };

/**
 * R-RH-TRANSFORM: runs the target's transformation, if it has one, on the event (a
 * forward's received headers included). Never throws: a worker without a sandbox fails
 * the attempt like any other failure, so the untransformed body is never sent.
 */
export async function transformForSend(
  transformer: Transformer | undefined,
  req: SendRequest,
): Promise<SendTransform> {
  const expression = req.target.transformation;
  if (expression === undefined) return { kind: 'none' };
  if (!transformer) return { kind: 'failed', reason: 'this worker has no transformation sandbox' };
  const fwd = req.target.forward;
  const headers = fwd ? Object.fromEntries(fwd.headers.map(([k, v]) => [k.toLowerCase(), v])) : undefined;
  try {
    const out = await transformer.transform(expression, { ...req.event, ...(headers ? { headers } : {}) });
    if (out.ok) return { kind: 'ok', request: out.request };
    return out.busy ? { kind: 'busy', reason: out.reason } : { kind: 'failed', reason: out.reason };
  } catch (err) {
    return { kind: 'failed', reason: err instanceof Error ? err.message : String(err) };
  }
}

/** A forward's flat header list with the transformation's headers put in place of the same names. */
export function overrideHeaderList(list: string[], headers: Record<string, string>): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < list.length; i += 2)
    if (!Object.hasOwn(headers, list[i]!.toLowerCase())) out.push(list[i]!, list[i + 1]!);
  for (const [k, v] of Object.entries(headers)) out.push(k, v);
  return out;
}
