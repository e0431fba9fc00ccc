import {
  MINUTE_MS,
  type HealthEffect,
  type HealthNotice,
  type HealthState,
  type HealthStatus,
  type HealthTransition,
  type SendOptions,
} from './types.js';

/**
 * How often a delivery held back by a manual pause looks again (assumed). The endpoint
 * workflow also wakes it on resume, so this is only the safety net for a lost wake-up.
 */
export const PAUSE_RECHECK_MS = MINUTE_MS;

export function initialHealth(): HealthState {
  return { status: 'active', consecutiveFailures: 0, episode: 0 };
}

/**
 * A small accumulator so each preset's transition reads as a list of steps. States are
 * never mutated: the endpoint workflow may still hold (and have cached) the previous one.
 */
export class Step {
  effects: HealthEffect[] = [];
  constructor(public state: HealthState) {}

  done(): HealthTransition {
    return { state: this.state, effects: this.effects };
  }

  set(patch: Partial<HealthState>): this {
    this.state = { ...this.state, ...patch };
    return this;
  }

  effect(e: HealthEffect): this {
    this.effects.push(e);
    return this;
  }

  /** An episode is open from its first notice until `recovered`. */
  inEpisode(): boolean {
    const sent = this.state.notified ?? [];
    return sent.length > 0 && !sent.includes('recovered');
  }

  /** Enter a health-caused status; a new episode starts unless one is already running. */
  enter(status: HealthStatus, at: number, reason: string): this {
    if (!this.inEpisode()) this.set({ episode: this.state.episode + 1, notified: [] });
    return this.status(status, at, reason);
  }

  status(status: HealthStatus, at: number, reason: string | undefined): this {
    if (this.state.status === status && this.state.reason === reason) return this;
    return this.set({ status, since: at, reason });
  }

  notify(notice: HealthNotice): this {
    const sent = this.state.notified ?? [];
    if (sent.includes(notice)) return this;
    this.set({ notified: [...sent, notice] });
    return this.effect({ kind: 'notify', notice, episode: this.state.episode });
  }

  /** Back to active; `recovered` closes the episode if one was running. */
  recover(at: number): this {
    this.status('active', at, undefined).clearStreak();
    if (this.inEpisode()) this.notify('recovered');
    return this;
  }

  countFailure(at: number): this {
    return this.set({
      consecutiveFailures: this.state.consecutiveFailures + 1,
      streakStartedAt: this.state.streakStartedAt ?? at,
    });
  }

  clearStreak(): this {
    if (this.state.consecutiveFailures === 0 && this.state.streakStartedAt === undefined) return this;
    return this.set({ consecutiveFailures: 0, streakStartedAt: undefined });
  }
}

export function unchanged(state: HealthState): HealthTransition {
  return { state, effects: [] };
}

/**
 * Whether a delivery came into being during the current status. Such a delivery was
 * never queued in the seeds' sense (it slipped past acceptsNewEvents through a stale
 * cache), so it ends `failed`, not like the deliveries the status change found pending.
 */
export function isNewSince(state: HealthState, opts: SendOptions): boolean {
  if (opts.createdAt !== undefined) return state.since !== undefined && opts.createdAt >= state.since;
  return opts.isNewDelivery === true;
}
