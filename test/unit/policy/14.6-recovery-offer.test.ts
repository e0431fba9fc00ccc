import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PRESET_NAMES, RECOVERY, presetsOffering, recoveryOf } from '../../../src/policy/presets.js';
import { replayWindowSeconds } from '../../../src/policy/replay-window.js';

const DAY = 86_400;

/** Issue 14.6: what each preset offers for manual recovery is data (SPEC §3 "manual recovery"). */
describe('14.6 R-BIRD-REPLAY: the recovery offer is a field of each preset', () => {
  it('14.6 R-BIRD-REPLAY: bird keeps no dead-letter list and offers no dead-letter retry nor per-delivery replay, only window replay, 3 days', () => {
    expect(RECOVERY.bird).toEqual({
      deadLetterList: false,
      deadLetterRetry: false,
      windowReplay: true,
      deliveryReplay: 'none',
      openSeconds: 3 * DAY,
      openFrom: 'round_end',
    });
  });

  it('14.6 R-RH-DLQ R-DT-REPLAY: the other presets read as SPEC §3 says', () => {
    // Smengo: no manual retry of deliveries; its dead letters are shown, never retried.
    expect(RECOVERY.smengo).toMatchObject({
      deadLetterList: true,
      deadLetterRetry: false,
      windowReplay: false,
      deliveryReplay: 'none',
      openSeconds: 0,
    });
    // Railhook: dead-letter retry (+3) and manual resend.
    expect(RECOVERY.railhook).toMatchObject({
      deadLetterList: true,
      deadLetterRetry: true,
      deliveryReplay: 'round',
    });
    // Dong Tien: replay opens a new round, 90 days back.
    expect(RECOVERY.dongtien).toMatchObject({
      deadLetterList: true,
      deliveryReplay: 'round',
      openSeconds: 90 * DAY,
    });
    // Standard: dead-letter retry and replay.
    expect(RECOVERY.standard).toMatchObject({
      deadLetterRetry: true,
      deliveryReplay: 'round',
      windowReplay: true,
    });
    expect(Object.keys(RECOVERY).sort()).toEqual([...PRESET_NAMES].sort());
  });

  it('14.6 R-BIRD-REPLAY: the replay window of every preset is its offer, and the offers are frozen', () => {
    for (const p of PRESET_NAMES) expect(replayWindowSeconds(p)).toBe(RECOVERY[p].openSeconds);
    expect(() => {
      (RECOVERY.bird as { deadLetterList: boolean }).deadLetterList = true;
    }).toThrow(TypeError);
  });

  it('14.6 R-BIRD-REPLAY: presetsOffering picks presets by their offer; an unknown preset is offered nothing', () => {
    expect(presetsOffering((o) => o.deadLetterList).sort()).toEqual([
      'dongtien',
      'railhook',
      'smengo',
      'standard',
    ]);
    expect(presetsOffering((o) => o.deadLetterRetry).sort()).toEqual(['dongtien', 'railhook', 'standard']);
    expect(presetsOffering((o) => o.deliveryReplay !== 'none')).not.toContain('bird');
    expect(recoveryOf('bird')).toBe(RECOVERY.bird);
    for (const unknown of [undefined, '', 'svix', 'constructor'])
      expect(recoveryOf(unknown)).toEqual({
        deadLetterList: false,
        deadLetterRetry: false,
        windowReplay: false,
        deliveryReplay: 'none',
        openSeconds: 0,
        openFrom: 'round_end',
      });
  });

  it('14.6 R-BIRD-REPLAY: the recovery routes decide by the offer, never by a preset name', () => {
    const dir = fileURLToPath(new URL('../../../src/api/routes/', import.meta.url));
    // Each resource may be one file or a .routes.ts/.handlers.ts pair (issue 15 step 5).
    const resources = ['dead-letters', 'replay', 'deliveries', 'endpoint-attempts'];
    const files = readdirSync(dir).filter((f) => resources.some((r) => f === `${r}.ts` || f.startsWith(`${r}.`)));
    for (const r of resources) expect(files.some((f) => f.startsWith(r)), `no route file for ${r}`).toBe(true);
    for (const f of files) {
      const code = readFileSync(dir + f, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
      for (const name of PRESET_NAMES) expect(code, `${f} names '${name}'`).not.toContain(`'${name}'`);
    }
  });
});
