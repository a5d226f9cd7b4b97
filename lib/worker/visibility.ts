import type { SQSRecord } from 'aws-lambda';
import { MAX_VISIBILITY_TIMEOUT_SECONDS } from '../queue/sqs-limits.js';

/*
 * SQS hides a message at most 12 hours counted from its first receive: a ChangeMessageVisibility
 * that would end later is refused, and a refused deferral leaves the message to come back after
 * the queue's own visibility timeout, spending a receive. The worker therefore plans every
 * deferral inside that window, from the message's ApproximateFirstReceiveTimestamp.
 */

/**
 * Kept free at the end of the window: the worker's clock and the queue's may differ a little,
 * and an emulator may count from the send rather than the first receive.
 */
export const VISIBILITY_MARGIN_SECONDS = 60;

/** When the message was first received, in ms: SQS's attribute, else its send time, else now. */
export function firstReceiveMs(record: Pick<SQSRecord, 'attributes'>, now: number): number {
  const a: Partial<SQSRecord['attributes']> = record.attributes ?? {};
  const at = Number(a.ApproximateFirstReceiveTimestamp || a.SentTimestamp || NaN);
  return Number.isFinite(at) && at > 0 ? Math.min(at, now) : now;
}

/** Whole seconds of visibility still allowed from `now`: 0 when the window is spent. */
export function visibilityLeftSeconds(firstReceive: number, now: number): number {
  const endMs = firstReceive + (MAX_VISIBILITY_TIMEOUT_SECONDS - VISIBILITY_MARGIN_SECONDS) * 1000;
  return Math.max(0, Math.floor((endMs - now) / 1000));
}

/** A wait planned against SQS's visibility window: deferred for whole seconds, or refused with the reason. */
export type VisibilityPlan =
  | { readonly kind: 'defer'; readonly seconds: number }
  /** The wait ends past the window: no deferral can bring the message back at its time. */
  | { readonly kind: 'cannot_fit'; readonly reason: string; readonly leftSeconds: number };

/** A wait that must be kept whole (a pace slot, a pause): deferred if it fits, otherwise refused with a reason. */
export function planWait(waitSeconds: number, firstReceive: number, now: number): VisibilityPlan {
  const left = visibilityLeftSeconds(firstReceive, now);
  const seconds = Math.max(0, Math.ceil(waitSeconds));
  if (seconds <= left) return { kind: 'defer', seconds };
  return {
    kind: 'cannot_fit',
    leftSeconds: left,
    reason:
      `a wait of ${seconds}s ends past SQS's 12-hour visibility limit for this message ` +
      `(first received ${new Date(firstReceive).toISOString()}, ${left}s left)`,
  };
}

/** A backoff may come back sooner than asked: cut to the window, or undefined when none is left. */
export function fitBackoff(seconds: number, firstReceive: number, now: number): number | undefined {
  const left = visibilityLeftSeconds(firstReceive, now);
  if (left < 1) return undefined;
  return Math.min(Math.max(0, Math.ceil(seconds)), left);
}
