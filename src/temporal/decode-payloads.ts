import type { LoadedDataConverter, Payload } from '@temporalio/common';
import { arrayFromPayloads } from '@temporalio/common';

/**
 * Payloads read straight from history (a workflow's start input), decoded as the SDK does
 * for its own reads: through the codecs last to first, then the payload converter. Written
 * here on the package's public exports, since its internal helpers change without notice.
 */
export async function decodePayloads(
  converter: LoadedDataConverter,
  payloads: Payload[] | null | undefined,
): Promise<unknown[]> {
  if (!payloads) return [];
  let decoded = payloads;
  for (let i = converter.payloadCodecs.length - 1; i >= 0; i--)
    decoded = await converter.payloadCodecs[i]!.decode(decoded);
  return arrayFromPayloads(converter.payloadConverter, decoded);
}
