import {
  type BreakerFacts,
  type BreakerScope,
  type BreakerSettings,
  breakerTrips,
  crossingRepositories,
  type OutcomeCounts,
} from '../decide/breaker.js';
import { isRerunDecision, type RerunOutcome } from '../model.js';
import { keys, TTL, ttlFrom } from './keys.js';
import { type AttemptRecord, type AttemptRef, attemptKey, type OutcomeRecord } from '../records.js';
import type { Table } from './table.js';

/**
 * The outcome of each re-run attempt reprise made, once per attempt: `recorded` the first
 * time, `already` for every repeat (a redelivery, the reconciler), `not_a_rerun` when the
 * attempt before it was not re-run by reprise (a person re-ran it, or it is the first).
 */
export interface RerunOutcomeLog {
  recordIfRerun(attempt: AttemptRef, outcome: RerunOutcome): Promise<'recorded' | 'already' | 'not_a_rerun'>;
  get(repoId: number, runId: number, attempt: number): Promise<OutcomeRecord | undefined>;
}

/** The repository a decision is about, for its own breaker. */
export interface BreakerRepository {
  readonly id: number;
  /** `owner/name`, for the reason. */
  readonly name: string;
}

/**
 * Pauses of automatic re-runs when re-run attempts keep being lost: one per repository, and
 * one per installation that opens on a pattern across repositories.
 */
export interface RerunBreaker {
  /**
   * The breaker that holds the run now (the installation's, else its repository's); `tripped`
   * only for the one caller whose read opened it.
   */
  state(
    installationId: number | null,
    repository?: BreakerRepository,
  ): Promise<BreakerFacts & { readonly tripped: boolean }>;
  /** Each breaker as it stands, without opening it: the installation's, then the repository's when given. */
  look(installationId: number | null, repository?: BreakerRepository): Promise<readonly BreakerFacts[]>;
}

/** The outcomes and the breakers they drive: one store, one table item per breaker. */
export type RerunOutcomes = RerunOutcomeLog & RerunBreaker;

interface StoredBreaker {
  readonly openUntil: number;
  readonly outcomes: number;
  readonly lostAgain: number;
  readonly lostRepositories?: number;
  readonly crossingRepositories?: number;
  readonly windowMs: number;
}

/** Where one breaker and its window of outcomes are kept. */
interface BreakerPlace {
  readonly scope: BreakerScope;
  readonly key: ReturnType<typeof keys.breaker>;
  readonly since: (iso: string) => ReturnType<typeof keys.outcomesSince>;
}

const factsOf = (b: StoredBreaker, scope: BreakerScope, tripped: boolean) => ({
  openUntil: b.openUntil,
  outcomes: b.outcomes,
  lostAgain: b.lostAgain,
  ...(b.lostRepositories !== undefined && { lostRepositories: b.lostRepositories }),
  ...(b.crossingRepositories !== undefined && { crossingRepositories: b.crossingRepositories }),
  windowMs: b.windowMs,
  scope,
  tripped,
});

/**
 * Re-run outcomes and the breaker they drive. Each outcome is two single-item writes: a
 * marker beside the run attempt, written once (so a redelivery or the reconciler never counts
 * it twice), then an item in the installation's time-sorted window, which TTL removes. The
 * breaker item says until when the installation's re-runs pause; opening it is conditional,
 * so of many workers reading the same evidence one opens it.
 */
export class TableRerunOutcomes implements RerunOutcomes {
  constructor(
    private readonly table: Table,
    readonly settings: BreakerSettings,
    private readonly now: () => number = Date.now,
  ) {
    const s = settings;
    if (!Number.isInteger(s.minOutcomes) || s.minOutcomes < 0) {
      throw new Error(`breaker: expected a whole number ≥ 0 of outcomes, got ${s.minOutcomes}`);
    }
    if (!(s.lostShare > 0 && s.lostShare <= 1)) throw new Error(`breaker: share must be in (0, 1], got ${s.lostShare}`);
    if (!(s.windowMs > 0) || !(s.coolDownMs > 0)) throw new Error('breaker: window and cool-down must be positive');
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
    const key = attemptKey(a.repoId, a.runId, a.runAttempt);
    // Twice the window: the window's Query never misses an item TTL has not yet removed.
    const item = {
      outcome,
      repository: a.repository,
      ttl: ttlFrom(now, Math.ceil((2 * this.settings.windowMs) / 1000)),
    };
    await this.table.put({ ...keys.outcomeAt(a.installationId, at, key), ...item });
    await this.table.put({ ...keys.repoOutcomeAt(a.installationId, a.repoId, at, key), ...item });
    return 'recorded';
  }

  get(repoId: number, runId: number, attempt: number): Promise<OutcomeRecord | undefined> {
    return this.table.get<OutcomeRecord>(keys.rerunOutcome(repoId, runId, attempt), true);
  }

  /**
   * The installation's breaker first (a pause there holds every repository), then the
   * repository's own. Each is open while a pause runs; otherwise the outcomes of its window,
   * counted since its last pause ended (evidence that opened a breaker does not open it
   * again), decide whether it opens now.
   */
  async state(
    installationId: number | null,
    repository?: BreakerRepository,
  ): Promise<BreakerFacts & { readonly tripped: boolean }> {
    const s = this.settings;
    const closed = { openUntil: null, outcomes: 0, lostAgain: 0, windowMs: s.windowMs, tripped: false };
    if (s.minOutcomes === 0) return closed;
    const fleet = await this.judge(this.installationPlace(installationId));
    if (fleet.openUntil !== null || !repository) return fleet;
    const own = await this.judge(this.repositoryPlace(installationId, repository));
    // While the repository's re-runs go, the decision reads the installation's counts.
    return own.openUntil !== null ? own : fleet;
  }

  /**
   * Each breaker as it stands, for an operator (the installation's, then the repository's, the
   * order the decision reads them in): never opens one.
   */
  async look(installationId: number | null, repository?: BreakerRepository): Promise<BreakerFacts[]> {
    const places = [this.installationPlace(installationId)];
    if (repository) places.push(this.repositoryPlace(installationId, repository));
    const out: BreakerFacts[] = [];
    for (const place of places) {
      const { last, counts } = await this.read(place, this.now());
      out.push(
        counts
          ? { openUntil: null, ...this.shown(counts, place), windowMs: this.settings.windowMs, scope: place.scope }
          : (({ tripped: _t, ...f }) => f)(factsOf(last!, place.scope, false)),
      );
    }
    return out;
  }

  private installationPlace(installationId: number | null): BreakerPlace {
    return {
      scope: { kind: 'installation' },
      key: keys.breaker(installationId),
      since: (iso) => keys.outcomesSince(installationId, iso),
    };
  }

  private repositoryPlace(installationId: number | null, repo: BreakerRepository): BreakerPlace {
    return {
      scope: { kind: 'repository', name: repo.name },
      key: keys.repoBreaker(installationId, repo.id),
      since: (iso) => keys.repoOutcomesSince(installationId, repo.id, iso),
    };
  }

  /** A window's counts as a breaker reports them: for the installation, how many repositories crossed the share. */
  private shown(c: OutcomeCounts, place: BreakerPlace): OutcomeCounts {
    const { byRepository: _each, ...counts } = c;
    if (place.scope.kind !== 'installation') return counts;
    return { ...counts, crossingRepositories: crossingRepositories(c, this.settings).length };
  }

  /** One breaker: open, opened now by this read, or closed with its counts. */
  private async judge(place: BreakerPlace): Promise<BreakerFacts & { readonly tripped: boolean }> {
    const s = this.settings;
    const now = this.now();
    const closed = {
      openUntil: null,
      outcomes: 0,
      lostAgain: 0,
      windowMs: s.windowMs,
      scope: place.scope,
      tripped: false,
    };
    const { last, counts: read } = await this.read(place, now);
    if (!read) return factsOf(last!, place.scope, false);
    const counts = this.shown(read, place);
    if (!breakerTrips(read, s, place.scope.kind)) return { ...closed, ...counts };

    const opened: StoredBreaker = { openUntil: now + s.coolDownMs, ...counts, windowMs: s.windowMs };
    const tripped = await this.table.putIf(
      { ...place.key, ...opened, openedAt: now, ttl: ttlFrom(now, Math.ceil((s.coolDownMs + s.windowMs) / 1000)) },
      last
        ? { expression: '#openUntil = :seen', values: { ':seen': last.openUntil } }
        : { expression: 'attribute_not_exists(#pk)' },
    );
    if (tripped) return factsOf(opened, place.scope, true);
    // Another worker opened it meanwhile: its pause holds.
    const other = await this.table.get<StoredBreaker>(place.key, true);
    return other && other.openUntil > now ? factsOf(other, place.scope, false) : { ...closed, ...counts };
  }

  /** The pause that runs now (no counts), or the outcomes since the window began or the last pause ended. */
  private async read(
    place: BreakerPlace,
    now: number,
  ): Promise<{
    last: StoredBreaker | undefined;
    counts?: Required<Omit<OutcomeCounts, 'crossingRepositories'>>;
  }> {
    const last = await this.table.get<StoredBreaker>(place.key, true);
    if (last && last.openUntil > now) return { last };
    const since = Math.max(now - this.settings.windowMs, last?.openUntil ?? 0);
    const items = await this.table.query<{ outcome: RerunOutcome; repository?: string }>(
      place.since(new Date(since).toISOString()),
      true,
    );
    const lost = items.filter((i) => i.outcome === 'lost_again');
    const byRepository = new Map<string, { outcomes: number; lostAgain: number }>();
    for (const i of items) {
      const r = byRepository.get(i.repository ?? '') ?? { outcomes: 0, lostAgain: 0 };
      r.outcomes++;
      if (i.outcome === 'lost_again') r.lostAgain++;
      byRepository.set(i.repository ?? '', r);
    }
    return {
      last,
      counts: {
        outcomes: items.length,
        lostAgain: lost.length,
        lostRepositories: new Set(lost.map((i) => i.repository ?? '')).size,
        byRepository: [...byRepository.values()],
      },
    };
  }
}
