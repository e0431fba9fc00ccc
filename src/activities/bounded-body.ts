import { isUtf8 } from 'node:buffer';

/**
 * A body kept to at most `limit` bytes for the attempt log (R-RESP's 512-byte response
 * snippet; issue 14.16's body as sent). Text when the kept bytes are UTF-8, cut before a
 * character the limit would split; otherwise the kept bytes as base64, so a binary or
 * mis-encoded body is shown as it came instead of with U+FFFD in place of its bytes.
 */
export interface BoundedBody {
  body: string;
  /** Present only when `body` is base64 (the bytes are not UTF-8). */
  encoding?: 'base64';
  /** The original was longer than what is kept. */
  truncated: boolean;
}

/** How many bytes the UTF-8 character that starts with this lead byte takes. */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0) return 4;
  if (lead >= 0xe0) return 3;
  if (lead >= 0xc0) return 2;
  return 1;
}

/**
 * `bytes` holds the start of the body (at least `limit` bytes of it when it is longer);
 * `totalBytes` is the body's whole length, when more was seen than `bytes` holds.
 */
export function boundBody(bytes: Uint8Array, limit: number, totalBytes = bytes.length): BoundedBody {
  const kept = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, limit));
  const truncated = Math.max(totalBytes, bytes.length) > kept.length;
  let end = kept.length;
  if (truncated) {
    // Walk back over at most 3 continuation bytes to the last character's lead byte; if
    // that character does not fit before the limit, the cut goes before it.
    let i = end - 1;
    while (i >= 0 && end - 1 - i < 3 && (kept[i]! & 0xc0) === 0x80) i--;
    if (i >= 0 && i + sequenceLength(kept[i]!) > end) end = i;
  }
  const text = kept.subarray(0, end);
  if (isUtf8(text)) return { body: text.toString('utf8'), truncated };
  return { body: kept.toString('base64'), encoding: 'base64', truncated };
}
