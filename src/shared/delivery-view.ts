import type { AttemptRecord, DeliveryState, DeliveryStatus } from './delivery-types.js';

/** What the API shows of a delivery: list rows from visibility, the log from the workflow. */
export interface DeliveryRow {
  id: string;
  endpointId: string;
  eventType: string;
  eventId: string;
  status: DeliveryStatus;
  createdAt: string;
}

export interface DeliveryView extends DeliveryRow {
  round: number;
  attemptsInRound: number;
  attemptBudget: number;
  attemptCount: number;
  responseCode: number | null;
  nextAttemptAt?: string;
  lastError?: string;
  body?: string;
  attempts: AttemptRecord[];
}

export const rowOf = (r: DeliveryRow): DeliveryRow => ({
  id: r.id,
  endpointId: r.endpointId,
  eventType: r.eventType,
  eventId: r.eventId,
  status: r.status,
  createdAt: r.createdAt,
});

const isAttempt = (a: AttemptRecord) => a.kind === 'attempt';
export const attemptCount = (s: DeliveryState) => s.attempts.filter(isAttempt).length;
/** The latest row that spent (or was refused) an attempt. */
export const latestAttempt = (s: DeliveryState) =>
  [...s.attempts].reverse().find((a) => a.kind === 'attempt' || a.kind === 'refused');
/** The error of the latest failed attempt, else the delivery's last code. */
export const lastError = (s: DeliveryState) => s.lastCode ?? latestAttempt(s)?.code;

/** R-RESP / R-LOG: the delivery with its attempt log, newest first. */
export function presentState(
  ref: { eventType: string; createdAt: string },
  s: DeliveryState,
  body?: string,
): DeliveryView {
  const latest = latestAttempt(s);
  const error = lastError(s);
  return {
    id: s.deliveryId,
    endpointId: s.endpointId,
    eventId: s.eventId,
    eventType: ref.eventType,
    status: s.status,
    createdAt: ref.createdAt,
    round: s.round,
    attemptsInRound: s.attemptsInRound,
    attemptBudget: s.attemptBudget,
    attemptCount: attemptCount(s),
    responseCode: latest?.httpStatus ?? null,
    ...(s.nextAttemptAt ? { nextAttemptAt: s.nextAttemptAt } : {}),
    ...(error ? { lastError: error } : {}),
    ...(body !== undefined ? { body } : {}),
    attempts: [...s.attempts].reverse(),
  };
}
