import type { RerunOutcome, SignalKind } from '../model.js';
import { STATE } from './attributes.js';
import { keys } from './keys.js';
import type { DecidedAttempt, OutcomeFact, ReportFacts, SignalFact } from '../records.js';
import type { ScanStart, Table } from './table.js';

type Stored = Record<string, unknown> & { pk: string; sk: string };

/** What `reprise report` counts: decisions, re-run outcomes and runner signals since a time. */
export interface ReportSource {
  facts(sinceMs: number): Promise<ReportFacts>;
}

/**
 * One filtered Scan for a report's period: decided run attempts, re-run outcome markers and
 * runner signals. A Scan, like the decision listing: it serves operators, not the hot path.
 */
export async function readReportFacts(table: Table, sinceMs: number): Promise<ReportFacts> {
  const run = keys.runAttemptPrefixes;
  const sig = keys.runnerSignalPrefixes;
  // Outcome markers live under RUNOUTCOME#; those written before under the run's partition are read too.
  const out = keys.rerunOutcomePrefixes;
  const items: Stored[] = [];
  let start: ScanStart | undefined;
  do {
    const page = await table.scanPage<Stored>(
      {
        expression:
          '(begins_with(#pk, :run) AND ((begins_with(#sk, :attempt) AND #state = :decided AND #decidedAt >= :since) ' +
          'OR (begins_with(#sk, :outcome) AND #recordedAt >= :since))) ' +
          'OR (begins_with(#pk, :outcomes) AND begins_with(#sk, :outcome) AND #recordedAt >= :since) ' +
          'OR (begins_with(#pk, :runner) AND begins_with(#sk, :signal) AND #eventTime >= :sinceIso)',
        values: {
          ':run': run.pk,
          ':attempt': run.sk,
          ':decided': STATE.decided,
          ':since': sinceMs,
          ':outcome': out.sk,
          ':outcomes': out.pk,
          ':runner': sig.pk,
          ':signal': sig.sk,
          ':sinceIso': new Date(sinceMs).toISOString(),
        },
      },
      start,
    );
    items.push(...page.items);
    start = page.next;
  } while (start);

  const decisions: DecidedAttempt[] = [];
  const outcomes: OutcomeFact[] = [];
  const signals: SignalFact[] = [];
  for (const item of items) {
    if (item.pk.startsWith(sig.pk)) signals.push(signalOf(item));
    else if (item.sk.startsWith(out.sk)) outcomes.push(outcomeOf(item));
    else decisions.push(decisionOf(item));
  }
  decisions.sort((a, b) => (b.decidedAt ?? 0) - (a.decidedAt ?? 0));
  outcomes.sort((a, b) => a.recordedAt - b.recordedAt);
  signals.sort((a, b) => a.eventTime.localeCompare(b.eventTime));
  return { decisions, outcomes, signals };
}

function decisionOf({ pk: _pk, sk: _sk, ttl: _ttl, message: _message, ...rest }: Stored): DecidedAttempt {
  return rest as unknown as DecidedAttempt;
}

function outcomeOf(item: Stored): OutcomeFact {
  return {
    repository: String(item.repository),
    runId: keys.runIdOf(item.pk),
    runAttempt: Number(item.runAttempt),
    outcome: item.outcome as RerunOutcome,
    recordedAt: Number(item.recordedAt),
  };
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function signalOf(item: Stored): SignalFact {
  const instanceId = text(item.instanceId);
  const instanceType = text(item.instanceType);
  const availabilityZone = text(item.availabilityZone);
  return {
    runnerKey: String(item.runnerKey),
    kind: item.kind as SignalKind,
    eventTime: String(item.eventTime),
    eventId: String(item.eventId),
    source: String(item.source),
    ...(instanceId && { instanceId }),
    ...(instanceType && { instanceType }),
    ...(availabilityZone && { availabilityZone }),
  };
}
