/**
 * The installation's counters in memory: the retry budget, the pace, the outcomes and the
 * breaker, the merge-queue loop guard. Each keeps the rule the decision relies on exactly (a
 * budget never over its limit, a slot never closer than the spacing, an outcome recorded once,
 * a requeue once per group); none forgives what the table refuses.
 */
import type { BudgetTake, BudgetUsage, RetryBudget } from '../../../lib/ledger/budget.js';
import type { RerunOutcomes } from '../../../lib/ledger/outcomes.js';
import type { Pacing } from '../../../lib/ledger/pacing.js';
import type { Requeues, RequeueRef } from '../../../lib/ledger/requeues.js';
import type { AttemptReader } from '../../../lib/ledger/run-attempts.js';
import type { EventPublisher, RepriseEvent } from '../../../lib/events/types.js';
import type { RunnerSignalLookup } from '../../../lib/signals/runner-lookup.js';
import { isRerunDecision, type RerunOutcome, type RunnerSignal } from '../../../lib/model.js';
import type { AttemptRef, OutcomeRecord } from '../../../lib/records.js';

const HOUR_MS = 3_600_000;

/** At most `limit` units a rolling hour per installation (0: no limit), one per run key, exactly. */
export class MemoryBudget implements RetryBudget {
  private readonly spends = new Map<number | null, { k: string; at: number }[]>();
  /** Every take asked for, taken or not. */
  readonly takes: string[] = [];

  constructor(
    readonly limit: number,
    private readonly now: () => number,
  ) {}

  async usage(installationId: number | null): Promise<BudgetUsage> {
    return { limit: this.limit, used: this.limit === 0 ? 0 : this.live(installationId).length };
  }

  async take(installationId: number | null, runKey: string): Promise<BudgetTake> {
    this.takes.push(runKey);
    if (this.limit === 0) return { taken: true };
    const live = this.live(installationId);
    if (live.some((s) => s.k === runKey)) return { taken: true };
    if (live.length >= this.limit) {
      // As the table answers: the repository's part (the run key's first part), with no share set.
      const repository = runKey.split('#')[0];
      const used = live.filter((s) => s.k.split('#')[0] === repository).length;
      return { taken: false, limit: this.limit, used: live.length, repository: { limit: this.limit, used } };
    }
    this.spends.set(installationId, [...live, { k: runKey, at: this.now() }]);
    return { taken: true };
  }

  async giveBack(installationId: number | null, runKey: string): Promise<void> {
    this.spends.set(
      installationId,
      this.live(installationId).filter((s) => s.k !== runKey),
    );
  }

  /** The run keys holding a unit of the hour. */
  held(installationId: number | null): string[] {
    return this.live(installationId).map((s) => s.k);
  }

  private live(installationId: number | null): { k: string; at: number }[] {
    const now = this.now();
    return (this.spends.get(installationId) ?? []).filter((s) => s.at > now - HOUR_MS);
  }
}

/**
 * Slots at least `spacingMs` apart per installation, none earlier than now. A reservation later
 * than `latest` is refused and reserves nothing, unless a slot is free now.
 */
export class MemoryPacing implements Pacing {
  readonly slots = new Map<number | null, number[]>();

  constructor(
    readonly spacingMs: number,
    private readonly now: () => number,
  ) {}

  async reserve(installationId: number | null, latest?: number): Promise<number | undefined> {
    const now = this.now();
    const taken = this.slots.get(installationId) ?? [];
    const last = taken.at(-1);
    const at = last === undefined ? now : Math.max(now, last + this.spacingMs);
    if (latest !== undefined && at > Math.max(latest, now)) return undefined;
    this.slots.set(installationId, [...taken, at]);
    return at;
  }
}

/**
 * Re-run outcomes recorded once per attempt, and only for an attempt whose predecessor the
 * attempts record as re-run by reprise; the breaker is open while a pause set by the test runs.
 */
export class MemoryOutcomes implements RerunOutcomes {
  readonly recorded = new Map<string, OutcomeRecord>();
  private openUntil: number | null = null;

  constructor(
    private readonly attempts: AttemptReader,
    private readonly now: () => number,
    private readonly windowMs = HOUR_MS,
  ) {}

  /** Opens the breaker until `untilMs`, as a trip would. */
  pause(untilMs: number): void {
    this.openUntil = untilMs;
  }

  async recordIfRerun(a: AttemptRef, outcome: RerunOutcome): Promise<'recorded' | 'already' | 'not_a_rerun'> {
    if (a.runAttempt < 2) return 'not_a_rerun';
    const prior = await this.attempts.get(a.repoId, a.runId, a.runAttempt - 1);
    if (!isRerunDecision(prior?.decision)) return 'not_a_rerun';
    const key = `${a.repoId}#${a.runId}#${a.runAttempt}`;
    if (this.recorded.has(key)) return 'already';
    this.recorded.set(key, { outcome, runAttempt: a.runAttempt, recordedAt: this.now() });
    return 'recorded';
  }

  async get(repoId: number, runId: number, attempt: number): Promise<OutcomeRecord | undefined> {
    return this.recorded.get(`${repoId}#${runId}#${attempt}`);
  }

  async state(_installationId: number | null) {
    return { ...this.installation(), tripped: false };
  }

  async look(_installationId: number | null) {
    return [this.installation()];
  }

  /** One breaker for the whole installation: this fake keeps no repository's apart. */
  private installation() {
    const outcomes = [...this.recorded.values()];
    const open = this.openUntil !== null && this.openUntil > this.now();
    return {
      openUntil: open ? this.openUntil : null,
      outcomes: outcomes.length,
      lostAgain: outcomes.filter((o) => o.outcome === 'lost_again').length,
      windowMs: this.windowMs,
    };
  }
}

/** One requeue per merge group, and at most `max` per pull-request head. */
export class MemoryRequeues implements Requeues {
  private readonly groups = new Set<string>();
  private readonly heads = new Map<string, number>();

  async claim(ref: RequeueRef, max: number): Promise<'claimed' | 'group_handled' | 'cap'> {
    const group = `${ref.repoId}#${ref.pullRequest}#${ref.groupSha}`;
    if (this.groups.has(group)) return 'group_handled';
    this.groups.add(group);
    const head = `${ref.repoId}#${ref.pullRequest}#${ref.headSha}`;
    const n = this.heads.get(head) ?? 0;
    if (n >= max) return 'cap';
    this.heads.set(head, n + 1);
    return 'claimed';
  }

  async release(ref: RequeueRef): Promise<void> {
    const head = `${ref.repoId}#${ref.pullRequest}#${ref.headSha}`;
    const n = this.heads.get(head) ?? 0;
    if (n > 0) this.heads.set(head, n - 1);
    this.groups.delete(`${ref.repoId}#${ref.pullRequest}#${ref.groupSha}`);
  }
}

/** Signals by runner name; a runner with none has none. */
export class MemorySignals implements RunnerSignalLookup {
  constructor(private readonly byRunner: Readonly<Record<string, readonly RunnerSignal[]>> = {}) {}

  async forRunner(runnerName: string | null): Promise<RunnerSignal[]> {
    return runnerName === null ? [] : [...(this.byRunner[runnerName] ?? [])];
  }
}

/** The events published, in order. */
export class MemoryEvents implements EventPublisher {
  readonly published: RepriseEvent[] = [];

  async publish(event: RepriseEvent): Promise<void> {
    this.published.push(event);
  }
}
