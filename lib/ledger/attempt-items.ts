/**
 * What every writer of a run attempt item (`RUN#…`/`ATTEMPT#…`) shares: its key, the
 * conditions that say whose claim it is, and the one write of a decision.
 */
import { type DecisionKind, RERUN_DECISIONS, type RunMessage } from '../model.js';
import type { AttemptState } from '../records.js';
import { clip, TEXT_CAPS } from '../util/clip.js';
import { type StoredAttempt, STATE } from './attributes.js';
import { type Key, keys } from './keys.js';
import type { Expression, Table } from './table.js';

/** The item key of a message's run attempt. */
export const keyOf = (msg: RunMessage): Key => keys.runAttempt(msg.repository.id, msg.runId, msg.runAttempt);
/** The item key a stored attempt was read under, to write it back conditionally. */
export const storedKey = (rec: StoredAttempt): Key => ({ pk: rec.pk, sk: rec.sk });

/** `decision IN (:rerun0, :rerun1)`: the re-run decisions, as an expression. */
export const RERUN_IN = {
  expression: `#decision IN (${RERUN_DECISIONS.map((_, i) => `:rerun${i}`).join(', ')})`,
  values: Object.fromEntries(RERUN_DECISIONS.map((d, i) => [`:rerun${i}`, d])),
};

/** Jobs a decision item lists at most: with names capped, the item stays far below DynamoDB's 400 KB. */
export const STORED_JOBS_LIMIT = 300;

/** A decision's details as stored: at most STORED_JOBS_LIMIT jobs (the rest counted), each name capped. */
function boundedDetails(details: object): object {
  const d = details as { jobs?: unknown; workflow?: unknown };
  const out: Record<string, unknown> = { ...details };
  if (typeof d.workflow === 'string') out.workflow = clip(d.workflow, TEXT_CAPS.name);
  if (Array.isArray(d.jobs)) {
    out.jobs = d.jobs
      .slice(0, STORED_JOBS_LIMIT)
      .map((j: { name?: unknown }) => (typeof j?.name === 'string' ? { ...j, name: clip(j.name, TEXT_CAPS.name) } : j));
    if (d.jobs.length > STORED_JOBS_LIMIT) out.jobsOmitted = d.jobs.length - STORED_JOBS_LIMIT;
  }
  return out;
}

/** Still claimed (or waiting) by this owner; with `leaseUntil`, still the very claim a sweep read. */
export function heldBy(owner: string, leaseUntil?: number, state: AttemptState = STATE.claimed): Expression {
  return {
    expression: `#state = :held AND #owner = :owner${leaseUntil === undefined ? '' : ' AND #leaseUntil = :lease'}`,
    values: { ':held': state, ':owner': owner, ...(leaseUntil !== undefined && { ':lease': leaseUntil }) },
  };
}

/** The one write of a decision, for the claim's owner and for the reconciler alike. */
export function writeDecision(
  table: Table,
  now: number,
  key: Key,
  claim: Expression,
  decision: { readonly decision: DecisionKind; readonly reason: string; readonly details: object },
): Promise<boolean> {
  return table.updateIf(
    key,
    // The facts kept for a wait are spent once the attempt is decided.
    'SET #state = :decided, #decision = :d, #reason = :r, #decidedAt = :t, #details = :x REMOVE #kept',
    {
      ':decided': STATE.decided,
      ':d': decision.decision,
      ':r': clip(decision.reason, TEXT_CAPS.reason),
      ':t': now,
      ':x': boundedDetails(decision.details),
    },
    claim,
  );
}
