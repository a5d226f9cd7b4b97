import type { FunctionName } from '../config/settings-schema.js';
import { type Key, keys } from './keys.js';

/**
 * What each deployed function may do on the table, declared beside the key layout so the two
 * move together: per store, the partition-key patterns (`dynamodb:LeadingKeys`) and the actions
 * its code sends; per function, the stores its compose opens. The stack grants exactly this
 * (infra/storage.ts), and the deployed test checks every request a function's bundle makes
 * against the policy the template gives it.
 */

export type TableAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query' | 'Scan';

/** Actions on the items whose partition key matches one of `leadingKeys` (IAM `StringLike` patterns). */
export interface KeyGrant {
  readonly leadingKeys: readonly string[];
  readonly actions: readonly TableAction[];
}

/** One function's access: keyed grants, and whether it may Scan (a Scan names no partition key). */
export interface TableGrant {
  readonly keyed: readonly KeyGrant[];
  readonly scan: boolean;
}

/** The pattern of a key's partition: its prefix up to its first `#`, then anything; or the whole key. */
export const leadingKeyOf = (key: Key): string => {
  const i = key.pk.indexOf('#');
  return i < 0 ? key.pk : `${key.pk.slice(0, i + 1)}*`;
};

const P = {
  delivery: leadingKeyOf(keys.delivery('g')),
  run: leadingKeyOf(keys.runAttempt(1, 1, 1)),
  rerunOutcome: leadingKeyOf(keys.rerunOutcome(1, 1, 1)),
  runnerSignal: leadingKeyOf(keys.runnerSignal('r', 't', 'e')),
  signalPost: leadingKeyOf(keys.signalPost('e')),
  signalSignature: leadingKeyOf(keys.signalSignature('s')),
  runnerJob: leadingKeyOf(keys.runnerJob('r', 1)),
  budget: leadingKeyOf(keys.budgetWindow(1)),
  pace: leadingKeyOf(keys.pacing(1)),
  outcomes: leadingKeyOf(keys.outcomeAt(1, 't', 'a')),
  breaker: leadingKeyOf(keys.breaker(1)),
  queuedJob: leadingKeyOf(keys.queuedJob(1, 1, 1)),
  queuedInstallation: leadingKeyOf(keys.queuedInstallation(1)),
  requeue: leadingKeyOf(keys.requeueHead(1, 1, 's')),
  cursor: leadingKeyOf(keys.reconcileCursor('n')),
  redelivery: leadingKeyOf(keys.redelivery('g')),
  branchRun: leadingKeyOf(keys.branchRun(1, 1, 1, 'b')),
  eksListing: leadingKeyOf(keys.eksListing('c')),
  recovery: leadingKeyOf(keys.recoveryEnd(1, 1, 1)),
  pause: leadingKeyOf(keys.pause('*')),
} as const;

const on = (leadingKey: string, ...actions: TableAction[]): KeyGrant => ({ leadingKeys: [leadingKey], actions });

/** Each store's requests, as its module sends them (lib/ledger/*.ts). */
export const STORE_ACCESS = {
  /** deliveries.ts, the intake's side: `isSeen`, `markSeen`. */
  deliveries: [on(P.delivery, 'GetItem', 'PutItem')],
  /** deliveries.ts, the reconciler's side: `isSeen`. */
  deliveryReads: [on(P.delivery, 'GetItem')],
  /** run-attempts.ts, the worker's side: claim, wait, finalise, release. */
  attempts: [on(P.run, 'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem')],
  /** run-attempts.ts, read only (the reconciler's `get`). */
  attemptReads: [on(P.run, 'GetItem')],
  /** requeues.ts */
  requeues: [on(P.requeue, 'PutItem', 'UpdateItem', 'DeleteItem')],
  /** budget.ts */
  budget: [on(P.budget, 'GetItem', 'PutItem')],
  /** pacing.ts */
  pacing: [on(P.pace, 'GetItem', 'PutItem')],
  /**
   * outcomes.ts: the prior attempt (read only: the intake holds this store, and must never create,
   * replace or delete a run-attempt claim), the outcome marker, the window, the breaker.
   */
  outcomes: [
    on(P.run, 'GetItem'),
    on(P.rerunOutcome, 'GetItem', 'PutItem'),
    on(P.outcomes, 'PutItem', 'Query'),
    on(P.breaker, 'GetItem', 'PutItem'),
  ],
  /** queued-jobs.ts, the intake's side: `queued` and `clear`. */
  queuedJobWrites: [on(P.queuedJob, 'PutItem', 'DeleteItem'), on(P.queuedInstallation, 'PutItem')],
  /** queued-jobs.ts, the sweep's side: the index, a share, its cursor, the report mark, `clear`. */
  queuedJobSweep: [
    on(P.queuedInstallation, 'Query'),
    on(P.queuedJob, 'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'),
  ],
  /** runner-jobs.ts, the intake's side: `started`, `finished`. */
  runnerJobWrites: [on(P.runnerJob, 'PutItem', 'DeleteItem')],
  /** runner-jobs.ts, the signal paths' side: `runningOn`. */
  runnerJobReads: [on(P.runnerJob, 'Query')],
  /** runner-signals.ts, an agent's post: `record`, `firstSeen` and an HMAC signature's `firstUse`. */
  signalPosts: [
    on(P.runnerSignal, 'PutItem'),
    on(P.signalPost, 'GetItem', 'PutItem'),
    on(P.signalSignature, 'PutItem'),
  ],
  /** runner-signals.ts, an EC2 event: `record`. */
  signalRecords: [on(P.runnerSignal, 'PutItem')],
  /** eks-listings.ts, the EC2 signal's side: `record`. */
  eksListingWrites: [on(P.eksListing, 'PutItem')],
  /** runner-signals.ts, the worker's side: `around` (through `signals/runner-lookup.ts`). */
  signalReads: [on(P.runnerSignal, 'Query')],
  /** run-recoveries.ts, the worker's side: an attempt's end (claim, settle, release, read) and a run's wait. */
  recoveries: [on(P.recovery, 'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem')],
  /** run-recoveries.ts, the intake's side: `waiting`, when a job of the run ends. */
  recoveryReads: [on(P.recovery, 'GetItem')],
  /** branch-runs.ts, the intake's side: `record`. */
  branchRunWrites: [on(P.branchRun, 'PutItem')],
  /** branch-runs.ts, the worker's side: `newest`. */
  branchRunReads: [on(P.branchRun, 'GetItem')],
  /** pauses.ts, the worker's side: `active` (the operator's CLI writes them, with its own credentials). */
  pauseReads: [on(P.pause, 'Query')],
  /** reconcile-store.ts, beside its Scan of run attempts: cursors, orphans, reclaims, redeliveries. */
  reconcile: [
    on(P.cursor, 'GetItem', 'PutItem'),
    on(P.run, 'PutItem', 'UpdateItem', 'DeleteItem'),
    on(P.redelivery, 'PutItem', 'UpdateItem', 'DeleteItem'),
  ],
} as const satisfies Record<string, readonly KeyGrant[]>;

/** A store of the ledger, by the name the grants table gives it. */
export type StoreName = keyof typeof STORE_ACCESS;

/** The stores each function's compose opens (lib/compose/*.ts), and whether it scans. */
export const FUNCTION_STORES: Readonly<Record<FunctionName, { stores: readonly StoreName[]; scan: boolean }>> = {
  intake: {
    stores: ['deliveries', 'runnerJobWrites', 'queuedJobWrites', 'outcomes', 'branchRunWrites', 'recoveryReads'],
    scan: false,
  },
  worker: {
    stores: [
      'attempts',
      'requeues',
      'budget',
      'pacing',
      'outcomes',
      'signalReads',
      'branchRunReads',
      'recoveries',
      'pauseReads',
    ],
    scan: false,
  },
  ec2Signal: { stores: ['signalRecords', 'runnerJobReads', 'eksListingWrites'], scan: false },
  // Internet-facing: runner signals and the first-seen times of their posts, and which jobs run on a
  // runner (for early recovery's requests), nothing else.
  signalIntake: { stores: ['signalPosts', 'runnerJobReads'], scan: false },
  // Its sweep of run attempts is a Scan (reconcile-store.ts), which no partition key can bound.
  reconciler: {
    stores: ['reconcile', 'attemptReads', 'deliveryReads', 'outcomes', 'queuedJobSweep', 'pacing'],
    scan: true,
  },
};

const ORDER: readonly TableAction[] = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan'];

/**
 * A function's grant: the actions on each leading key merged over its stores, then the leading
 * keys that share one set of actions in one grant, so a key is never given another key's actions.
 */
export function tableGrant(fn: FunctionName): TableGrant {
  const { stores, scan } = FUNCTION_STORES[fn];
  const byKey = new Map<string, Set<TableAction>>();
  for (const g of stores.flatMap((s) => STORE_ACCESS[s] as readonly KeyGrant[])) {
    for (const k of g.leadingKeys) {
      const set = byKey.get(k) ?? new Set<TableAction>();
      for (const a of g.actions) set.add(a);
      byKey.set(k, set);
    }
  }
  const byActions = new Map<string, { actions: TableAction[]; leadingKeys: string[] }>();
  for (const [k, set] of [...byKey].sort(([a], [b]) => a.localeCompare(b))) {
    const actions = ORDER.filter((a) => set.has(a));
    const id = actions.join(',');
    const g = byActions.get(id) ?? { actions, leadingKeys: [] };
    g.leadingKeys.push(k);
    byActions.set(id, g);
  }
  return { keyed: [...byActions.values()], scan };
}
