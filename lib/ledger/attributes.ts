import type { AttemptRecord, AttemptState } from '../records.js';

/** A run attempt item as stored, with its keys. */
export type StoredAttempt = AttemptRecord & { readonly pk: string; readonly sk: string; readonly ttl?: number };

/**
 * Attribute names of the table's items and the values of a run attempt's `state`. Expressions
 * write every attribute as `#name`, and `#name` resolves here, so a misspelt attribute fails
 * at the first write instead of matching nothing.
 */
export const ATTR = {
  pk: 'pk',
  sk: 'sk',
  ttl: 'ttl',
  // run attempt
  state: 'state',
  owner: 'owner',
  claimedAt: 'claimedAt',
  leaseUntil: 'leaseUntil',
  decision: 'decision',
  reason: 'reason',
  decidedAt: 'decidedAt',
  details: 'details',
  followUp: 'followUp',
  followUpDetail: 'followUpDetail',
  followUpAt: 'followUpAt',
  // waiting run attempt
  slotAt: 'slotAt',
  waitingSince: 'waitingSince',
  unreserved: 'unreserved',
  kept: 'kept',
  message: 'message',
  // a claim whose re-run call failed, its outcome unknown
  callError: 'callError',
  // reclaim marker
  claim: 'claim',
  releasedAt: 'releasedAt',
  releases: 'releases',
  // redelivery, re-run outcome
  outcome: 'outcome',
  recordedAt: 'recordedAt',
  // runner signal
  eventTime: 'eventTime',
  // breaker
  openUntil: 'openUntil',
  // signal post first-seen marker
  seenMs: 'seenMs',
  // an HMAC signature's use: until when it blocks a replay
  untilMs: 'untilMs',
  // queued job
  reportedAt: 'reportedAt',
  // pacing of an installation
  slots: 'slots',
  // re-enqueues of a pull-request head
  requeues: 'requeues',
  version: 'version',
  // newest run of a workflow on a branch
  runNumber: 'runNumber',
  // early end of a run attempt
  status: 'status',
  calls: 'calls',
  // the operator's pause of a scope
  since: 'since',
} as const;

/** The name of an attribute the ledger writes or reads in an expression. */
export type AttributeName = keyof typeof ATTR;

/**
 * A run attempt is claimed by one worker, may wait for its re-run slot (then any worker takes
 * it over once the slot came), then is decided; a decided attempt is never claimed again.
 */
export const STATE = { claimed: 'claimed', waiting: 'waiting', decided: 'decided' } as const satisfies Record<
  string,
  AttemptState
>;
