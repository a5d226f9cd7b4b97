import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type BreakerFacts, type BreakerSettings, breakerTrips } from '../decide/breaker.js';
import { isRerunDecision, type RerunOutcome } from '../model.js';
import { keys, TTL, ttlFrom } from './keys.js';
import type { AttemptRecord, AttemptRef, OutcomeRecord } from '../records.js';
import { Table } from './table.js';

/**
 * The outcome of each re-run attempt reprise made, once per attempt: `recorded` the first
 * time, `already` for every repeat (a redelivery, the reconciler), `not_a_rerun` when the
 * attempt before it was not re-run by reprise (a person re-ran it, or it is the first).
 */
export interface RerunOutcomeLog {
  recordIfRerun(attempt: AttemptRef, outcome: RerunOutcome): Promise<'recorded' | 'already' | 'not_a_rerun'>;
  get(repoId: number, runId: number, attempt: number): Promise<OutcomeRecord | undefined>;
}

/** Per-installation pause of automatic re-runs when re-run attempts keep being lost. */
export interface RerunBreaker {
  /** The breaker now; `tripped` only for the one caller whose read opened it. */
  state(installationId: number | null): Promise<BreakerFacts & { readonly tripped: boolean }>;
  /** The breaker as it stands, without opening it. */
  look(installationId: number | null): Promise<BreakerFacts>;
}

/** The outcomes and the breaker they drive: one store, one table item per installation. */
export type RerunOutcomes = RerunOutcomeLog & RerunBreaker;

interface StoredBreaker {
  readonly openUntil: number;
  readonly outcomes: number;
  readonly lostAgain: number;
  readonly windowMs: number;
}

const factsOf = (b: StoredBreaker, tripped: boolean) => ({
  openUntil: b.openUntil,
  outcomes: b.outcomes,
  lostAgain: b.lostAgain,
  windowMs: b.windowMs,
  tripped,
});

/**
 * Re-run outcomes and the breaker they drive. Each outcome is two single-item writes: a
 * marker beside the run attempt, written once (so a redelivery or the reconciler never counts
 * it twice), then an item in the installation's time-sorted window, which TTL removes. The
 * breaker item says until when the installation's re-runs pause; opening it is conditional,
 * so of many workers reading the same evidence one opens it.
 */
export class DynamoRerunOutcomes implements RerunOutcomes {
  private readonly table: Table;

  constructor(
    client: DynamoDBClient,
    tableName: string,
    readonly settings: BreakerSettings,
    private readonly now: () => number = Date.now,
  ) {
    const s = settings;
    if (!Number.isInteger(s.minOutcomes) || s.minOutcomes < 0) {
      throw new Error(`breaker: expected a whole number ≥ 0 of outcomes, got ${s.minOutcomes}`);
    }
    if (!(s.lostShare > 0 && s.lostShare <= 1)) throw new Error(`breaker: share must be in (0, 1], got ${s.lostShare}`);
    if (!(s.windowMs > 0) || !(s.coolDownMs > 0)) throw new Error('breaker: window and cool-down must be positive');
    this.table = new Table(client, tableName);
  }

  async recordIfRerun(a: AttemptRef, outcome: RerunOutcome): Promise<'recorded' | 'already' | 'not_a_rerun'> {
    if (a.runAttempt < 2) return 'not_a_rerun';
    const prior = await this.table.get<AttemptRecord>(keys.runAttempt(a.repoId, a.runId, a.runAttempt - 1), true);
    if (!isRerunDecision(prior?.decision)) return 'not_a_rerun';
    const now = this.now();
    const at = new Date(now).toISOString();
    const marker = {
      ...keys.rerunOutcome(a.repoId, a.runId, a.runAttempt),
      outcome,
      runAttempt: a.runAttempt,
      recordedAt: now,
      installationId: a.installationId,
      repository: a.repository,
      ttl: ttlFrom(now, TTL.rerunOutcome),
    };
    if (!(await this.table.putIf(marker, { expression: 'attribute_not_exists(#pk)' }))) return 'already';
    await this.table.put({
      ...keys.outcomeAt(a.installationId, at, `${a.repoId}#${a.runId}#${a.runAttempt}`),
      outcome,
      repository: a.repository,
      // Twice the window: the window's Query never misses an item TTL has not yet removed.
      ttl: ttlFrom(now, Math.ceil((2 * this.settings.windowMs) / 1000)),
    });
    return 'recorded';
  }

  get(repoId: number, runId: number, attempt: number): Promise<OutcomeRecord | undefined> {
    return this.table.get<OutcomeRecord>(keys.rerunOutcome(repoId, runId, attempt), true);
  }

  /**
   * Open while a pause runs. Otherwise the outcomes of the window, counted since the last
   * pause ended (evidence that opened a breaker does not open it again), decide whether it opens now.
   */
  async state(installationId: number | null): Promise<BreakerFacts & { readonly tripped: boolean }> {
    const s = this.settings;
    const closed = { openUntil: null, outcomes: 0, lostAgain: 0, windowMs: s.windowMs, tripped: false };
    if (s.minOutcomes === 0) return closed;
    const now = this.now();
    const key = keys.breaker(installationId);
    const { last, counts } = await this.read(installationId, now);
    if (!counts) return factsOf(last!, false);
    if (!breakerTrips(counts, s)) return { ...closed, ...counts };

    const opened: StoredBreaker = { openUntil: now + s.coolDownMs, ...counts, windowMs: s.windowMs };
    const tripped = await this.table.putIf(
      { ...key, ...opened, openedAt: now, ttl: ttlFrom(now, Math.ceil((s.coolDownMs + s.windowMs) / 1000)) },
      last
        ? { expression: '#openUntil = :seen', values: { ':seen': last.openUntil } }
        : { expression: 'attribute_not_exists(#pk)' },
    );
    if (tripped) return factsOf(opened, true);
    // Another worker opened it meanwhile: its pause holds.
    const other = await this.table.get<StoredBreaker>(key, true);
    return other && other.openUntil > now ? factsOf(other, false) : { ...closed, ...counts };
  }

  /** The breaker as it stands, for an operator: never opens it. */
  async look(installationId: number | null): Promise<BreakerFacts> {
    const { last, counts } = await this.read(installationId, this.now());
    return counts ? { openUntil: null, ...counts, windowMs: this.settings.windowMs } : factsOf(last!, false);
  }

  /** The pause that runs now (no counts), or the outcomes since the window began or the last pause ended. */
  private async read(
    installationId: number | null,
    now: number,
  ): Promise<{ last: StoredBreaker | undefined; counts?: { outcomes: number; lostAgain: number } }> {
    const last = await this.table.get<StoredBreaker>(keys.breaker(installationId), true);
    if (last && last.openUntil > now) return { last };
    const since = Math.max(now - this.settings.windowMs, last?.openUntil ?? 0);
    const items = await this.table.query<{ outcome: RerunOutcome }>(
      keys.outcomesSince(installationId, new Date(since).toISOString()),
      true,
    );
    return {
      last,
      counts: { outcomes: items.length, lostAgain: items.filter((i) => i.outcome === 'lost_again').length },
    };
  }
}
