import type { PresetName } from './types.js';

const DAY = 24 * 3600;

/**
 * How long a finished delivery stays open for dead-letter retry and replay (SPEC §3
 * "manual recovery" and "log / body retention"). Smengo offers no manual retry of a
 * delivery, so its deliveries close at once; Bird's attempts live 3 days; Dong Tien
 * replays up to 90 days back.
 */
export function replayWindowSeconds(preset: PresetName): number {
  switch (preset) {
    case 'smengo':
      return 0;
    case 'bird':
      return 3 * DAY;
    case 'dongtien':
      return 90 * DAY;
    case 'standard':
    case 'railhook':
      return 30 * DAY;
  }
}

/** R-RH-DLQ: a dead-letter retry grants this many more attempts. */
export const DLQ_RETRY_ATTEMPTS = 3;
