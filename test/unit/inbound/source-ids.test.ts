// Issue 13.7 and 13.8: the derived ids of inbound sources and of signed messages.
import { describe, expect, it } from 'vitest';
import { SOURCE_ID, newSourceId } from '../../../src/inbound/forwards.js';
import { publicSourceId, webhookForwardId, webhookRequestId } from '../../../src/inbound/source-ids.js';

describe('13.7b R-RH-INBOUND: public source ids', () => {
  it('13.7b: the public id is a fixed function of the ingest id, in the source id format, and never the ingest id', () => {
    const ingest = newSourceId();
    expect(publicSourceId(ingest)).toBe(publicSourceId(ingest));
    expect(publicSourceId(ingest)).toMatch(SOURCE_ID);
    expect(publicSourceId(ingest)).not.toBe(ingest);
    expect(publicSourceId(ingest)).not.toContain(ingest.slice(4, 12));
    // Known answer, so a change of derivation (which would orphan every source) cannot pass unnoticed.
    expect(publicSourceId(`src_${'0'.repeat(32)}`)).toBe('src_3d35297e153b1f065f0dff0742eba9c2');
    expect(publicSourceId(`src_${'0'.repeat(32)}`)).not.toBe(publicSourceId(`src_${'0'.repeat(31)}1`));
  });
});

describe('13.8 R-RH-INBOUND: ids of a signed message', () => {
  it('13.8: one webhook-id on one source names one request and one forward per destination; other sources and ids differ', () => {
    const src = publicSourceId(newSourceId());
    const other = publicSourceId(newSourceId());
    expect(webhookRequestId(src, 'msg_1')).toBe(webhookRequestId(src, 'msg_1'));
    expect(webhookRequestId(src, 'msg_1')).toMatch(/^req_[a-f0-9]{24}$/);
    expect(webhookRequestId(src, 'msg_1')).not.toBe(webhookRequestId(other, 'msg_1'));
    expect(webhookRequestId(src, 'msg_1')).not.toBe(webhookRequestId(src, 'msg_2'));
    const a = webhookForwardId(src, 'msg_1', 'dst_a');
    expect(a).toMatch(/^fwd_[a-f0-9]{32}$/);
    expect(a).toBe(webhookForwardId(src, 'msg_1', 'dst_a'));
    expect(a).not.toBe(webhookForwardId(src, 'msg_1', 'dst_b'));
    expect(a).not.toBe(webhookForwardId(other, 'msg_1', 'dst_a'));
  });
});
