import type { DeliveryPolicy, PresetName, RecoveryOffer } from './types.js';
import { RAILHOOK_DEFAULT_RETRYABLE_STATUSES } from './status-grammar.js';

export type { DeliveryPolicy, PresetName, RecoveryOffer } from './types.js';

export const PRESET_NAMES: readonly PresetName[] = Object.freeze([
  'standard',
  'smengo',
  'railhook',
  'bird',
  'dongtien',
]);

const MIN = 60;
const HOUR = 3600;

/** "Attempt timeout + a few seconds" (SPEC §3 lease row): room for DNS and reading the first 512 bytes. */
export const LEASE_GRACE_SECONDS = 5;
/** Railhook's `WEBHOOK_CLAIM_TIMEOUT_SECONDS` default; above its 60 s timeout ceiling. */
export const RAILHOOK_CLAIM_TIMEOUT_SECONDS = 300;
/** Railhook's `WEBHOOK_RETRY_AFTER_MAX_SECONDS` default. */
export const RAILHOOK_RETRY_AFTER_MAX_SECONDS = 6 * HOUR;

// The schedule three seeds share (smengo, bird, dongtien) and standard adopts.
const SHARED_DELAYS = [5, 5 * MIN, 30 * MIN, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

// Every non-2xx status, in the grammar. 1xx is listed so "every non-2xx" is
// literally true even though a final 1xx response is practically impossible.
const EVERY_FAILURE = '1xx,3xx,4xx,5xx';

/**
 * SPEC §3 "lease before a lost attempt is picked up again", per preset: Railhook's claim
 * timeout is a setting of its own (300 s, above its 60 s timeout ceiling); the others wait
 * out the attempt timeout plus a few seconds.
 */
const LEASE: Readonly<Record<PresetName, { fixedSeconds: number } | { graceSeconds: number }>> =
  Object.freeze({
    standard: { graceSeconds: LEASE_GRACE_SECONDS },
    smengo: { graceSeconds: LEASE_GRACE_SECONDS },
    railhook: { fixedSeconds: RAILHOOK_CLAIM_TIMEOUT_SECONDS },
    bird: { graceSeconds: LEASE_GRACE_SECONDS },
    dongtien: { graceSeconds: LEASE_GRACE_SECONDS },
  });

/** The lease a preset uses for a given attempt timeout. */
export function leaseSecondsFor(preset: PresetName, timeoutSeconds: number): number {
  const lease = LEASE[preset];
  return 'fixedSeconds' in lease ? lease.fixedSeconds : timeoutSeconds + lease.graceSeconds;
}

function deepFreeze<T extends object>(o: T): T {
  for (const v of Object.values(o)) if (v !== null && typeof v === 'object') deepFreeze(v as object);
  return Object.freeze(o);
}

const standard: DeliveryPolicy = {
  preset: 'standard',
  direction: 'outbound',
  maxAttempts: 8,
  retryDelaysSeconds: SHARED_DELAYS,
  jitter: { min: 0.9, max: 1.1, fromAttempt: 2 },
  timeoutSeconds: 15,
  // 410 is excluded here and handled by goneAction; stated twice on purpose so
  // the list alone already reads like the SPEC row.
  retryableStatuses: `${EVERY_FAILURE},!410`,
  retryAfter: { statuses: '429,503', rule: 'max', capSeconds: HOUR, minSeconds: 0, ignore: false },
  minDelayAfter429OrTimeoutSeconds: 0,
  lifetimeSeconds: 96 * HOUR,
  deliveryIdHeader: 'Webhook-Delivery-Id',
  privateAddress: 'retry',
  invalidUrl: 'retry',
  goneAction: 'exhaust_and_disable',
  leaseSeconds: leaseSecondsFor('standard', 15),
};

const smengo: DeliveryPolicy = {
  ...standard,
  preset: 'smengo',
  retryDelaysSeconds: [...SHARED_DELAYS],
  jitter: { ...standard.jitter },
  retryAfter: { statuses: '429,5xx', rule: 'max', capSeconds: HOUR, minSeconds: 0, ignore: false },
  lifetimeSeconds: null,
  deliveryIdHeader: 'Smengo-Delivery-Id',
  goneAction: 'dead_and_disable',
};

const railhook: DeliveryPolicy = {
  preset: 'railhook',
  direction: 'outbound',
  maxAttempts: 7,
  retryDelaysSeconds: [MIN, 5 * MIN, 15 * MIN, HOUR, 6 * HOUR, 24 * HOUR],
  jitter: { min: 0.5, max: 1.5, fromAttempt: 2 },
  timeoutSeconds: 30,
  retryableStatuses: RAILHOOK_DEFAULT_RETRYABLE_STATUSES,
  retryAfter: {
    statuses: '429,503',
    rule: 'max',
    capSeconds: RAILHOOK_RETRY_AFTER_MAX_SECONDS,
    minSeconds: 0,
    ignore: false,
  },
  minDelayAfter429OrTimeoutSeconds: 0,
  lifetimeSeconds: 96 * HOUR,
  // Only Smengo's seed names a header; the others keep Herald's Standard Webhooks-style name.
  deliveryIdHeader: 'Webhook-Delivery-Id',
  privateAddress: 'fail',
  invalidUrl: 'fail',
  goneAction: 'follow_list',
  leaseSeconds: RAILHOOK_CLAIM_TIMEOUT_SECONDS,
};

const bird: DeliveryPolicy = {
  ...standard,
  preset: 'bird',
  retryDelaysSeconds: [...SHARED_DELAYS],
  jitter: { min: 0.8, max: 1.2, fromAttempt: 2 },
  retryableStatuses: EVERY_FAILURE,
  retryAfter: { statuses: '429,503', rule: 'max', capSeconds: 6 * HOUR, minSeconds: 0, ignore: false },
  minDelayAfter429OrTimeoutSeconds: 60,
  lifetimeSeconds: null,
  goneAction: 'follow_list',
};

const dongtien: DeliveryPolicy = {
  ...standard,
  preset: 'dongtien',
  retryDelaysSeconds: [...SHARED_DELAYS],
  jitter: { min: 0.9, max: 1.1, fromAttempt: 2 },
  timeoutSeconds: 10,
  // The header applies to "any failed response"; 410 never reaches it (goneAction).
  retryAfter: {
    statuses: EVERY_FAILURE,
    rule: 'replace',
    capSeconds: 24 * HOUR,
    minSeconds: 1,
    ignore: false,
  },
  lifetimeSeconds: null,
  goneAction: 'exhaust_and_disable',
  leaseSeconds: leaseSecondsFor('dongtien', 10),
};

/** Outbound presets, frozen: resolvePolicy hands out copies. */
export const PRESETS: Record<PresetName, DeliveryPolicy> = deepFreeze({
  standard,
  smengo,
  railhook,
  bird,
  dongtien,
});

/** R-RH-INBOUND: Railhook's forward of a received webhook to its destination. */
export const INBOUND_FORWARD_POLICY: DeliveryPolicy = deepFreeze({
  ...railhook,
  direction: 'inbound',
  maxAttempts: 5,
  retryDelaysSeconds: [MIN, 5 * MIN, 15 * MIN, HOUR],
  jitter: { ...railhook.jitter },
  retryAfter: { ...railhook.retryAfter },
  lifetimeSeconds: 24 * HOUR,
});

/**
 * The inbound forward schedule a preset defines (SPEC §3 "attempts": Railhook's 5 inbound);
 * the others keep their outbound rules for `inbound`.
 */
export const INBOUND_POLICIES: Readonly<Partial<Record<PresetName, DeliveryPolicy>>> = Object.freeze({
  railhook: INBOUND_FORWARD_POLICY,
});

const DAY = 24 * HOUR;

/**
 * Presets that refuse a private address when the URL is set, resolving the host then (Bird:
 * "the replacement URL must be publicly reachable HTTPS", issue 14.9). The send-time check
 * holds for every preset; this one is the save-time answer a tenant sees at once.
 */
export const REFUSE_PRIVATE_AT_SAVE: Readonly<Record<PresetName, boolean>> = Object.freeze({
  standard: false,
  smengo: false,
  railhook: false,
  bird: true,
  dongtien: false,
});
export const refusesPrivateAtSave = (preset: PresetName): boolean => REFUSE_PRIVATE_AT_SAVE[preset] ?? false;
/** R-BIRD-REPLAY: a Bird window replay reaches back at most this many days. */
export const BIRD_REPLAY_DAYS = 3;
/** R-DT-REPLAY: Dong Tien events older than this many days cannot be replayed. */
export const DT_REPLAY_DAYS = 90;

/**
 * SPEC §3 "manual recovery", per preset (issue 14.6). Where a seed is silent, Herald keeps
 * what it already offered:
 * - standard: dead-letter retry and replay, its whole column assumed.
 * - smengo: "no manual retry of deliveries" (a finished delivery closes at once, so its dead
 *   letters are listed but cannot be retried); what was missed is read back through the events API.
 * - railhook: dead-letter retry (+3) and manual resend (a new round); window replay kept as Herald's own.
 * - bird: "no separate dead-letter list": recovery is window replay only, each resend one
 *   attempt, counted against the 20-a-day quota (so no per-delivery replay that would bypass it);
 *   attempts live 3 days.
 * - dongtien: replay of one delivery or bulk, a new round of up to 8, 90 days back; its
 *   dead-letter list (hold overflow) stays, with the +3 retry and window replay Herald adds.
 */
export const RECOVERY: Record<PresetName, RecoveryOffer> = deepFreeze({
  standard: {
    deadLetterList: true,
    deadLetterRetry: true,
    windowReplay: true,
    deliveryReplay: 'round',
    openSeconds: 30 * DAY,
    openFrom: 'round_end',
  },
  smengo: {
    deadLetterList: true,
    deadLetterRetry: false,
    windowReplay: false,
    deliveryReplay: 'none',
    openSeconds: 0,
    openFrom: 'round_end',
  },
  railhook: {
    deadLetterList: true,
    deadLetterRetry: true,
    windowReplay: true,
    deliveryReplay: 'round',
    openSeconds: 30 * DAY,
    openFrom: 'round_end',
  },
  bird: {
    deadLetterList: false,
    deadLetterRetry: false,
    windowReplay: true,
    deliveryReplay: 'none',
    openSeconds: BIRD_REPLAY_DAYS * DAY,
    openFrom: 'round_end',
  },
  dongtien: {
    deadLetterList: true,
    deadLetterRetry: true,
    windowReplay: true,
    deliveryReplay: 'round',
    openSeconds: DT_REPLAY_DAYS * DAY,
    openFrom: 'created',
  },
});

/**
 * The recovery a delivery's preset offers. A name Herald does not know (a search attribute
 * from an older build, or none) gets nothing rather than everything.
 */
export function recoveryOf(preset: string | undefined): RecoveryOffer {
  return (PRESET_NAMES as readonly string[]).includes(preset ?? '')
    ? RECOVERY[preset as PresetName]
    : NO_RECOVERY;
}

const NO_RECOVERY: RecoveryOffer = deepFreeze({
  deadLetterList: false,
  deadLetterRetry: false,
  windowReplay: false,
  deliveryReplay: 'none',
  openSeconds: 0,
  openFrom: 'round_end',
});

/** The presets whose offer passes `test`, for a visibility clause (`HeraldPreset IN (...)`). */
export function presetsOffering(test: (o: RecoveryOffer) => boolean): PresetName[] {
  return PRESET_NAMES.filter((p) => test(RECOVERY[p]));
}
