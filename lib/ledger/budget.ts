import { MAX_BUDGET_PER_HOUR } from '../config/settings-table.js';
import { keys, TTL, ttlFrom } from './keys.js';
import type { Table } from './table.js';
import { type VersionedItems, versionedItemsOf } from './versioned.js';

/** How much of its hourly retry budget an installation has spent, and the limit. */
export interface BudgetUsage {
  readonly limit: number;
  readonly used: number;
  /** One repository's part of the hour: its share of the installation's limit, and what it used. */
  readonly repository?: { readonly limit: number; readonly used: number };
}

/** What a take answers: the unit, or the usage that left none (the decision's reason names it). */
export type BudgetTake = { readonly taken: true } | ({ readonly taken: false } & BudgetUsage);

/** The retry budget: per-installation re-runs in the rolling hour, each repository within its share. */
export interface RetryBudget {
  /** The installation's usage, and the repository's part when `repositoryId` is given. */
  usage(installationId: number | null, repositoryId?: number): Promise<BudgetUsage>;
  /**
   * Takes one unit of the rolling hour for `attemptKey` (`<repository id>#…`), atomically across
   * workers, just before its re-run call; none is taken when the hour's units are spent, or its
   * repository's share of them.
   */
  take(installationId: number | null, attemptKey: string): Promise<BudgetTake>;
  /** Gives back the unit `attemptKey` took, when its call was not made or re-ran nothing. */
  giveBack(installationId: number | null, attemptKey: string): Promise<void>;
}

const HOUR_MS = 60 * 60 * 1000;

interface Spend {
  /** The run attempt the unit was taken for. */
  readonly k: string;
  /** When, epoch ms. */
  readonly at: number;
}

interface WindowItem {
  readonly spends?: Spend[];
  readonly version?: number;
}

/** The repository a unit was taken for: the first part of its run key. */
const repositoryOf = (attemptKey: string): string => attemptKey.split('#')[0] ?? '';

/**
 * The per-installation retry budget: at most `limitPerHour` re-runs in any rolling hour,
 * exactly, however many workers decide at once, and at most `repositoryShare` of them for one
 * repository (rounded up), so one repository cannot spend every other's re-runs. One table item per installation holds the units
 * taken in the last hour; a take adds a unit when one is left, as a versioned read-modify-write
 * (versioned.ts). Units older than an hour fall out at the next write, so the budget refills by
 * itself as the window moves; TTL removes an idle item.
 */
export class TableRetryBudget implements RetryBudget {
  private readonly windows: VersionedItems;
  /** Units one repository may hold in the rolling hour. */
  readonly repositoryLimit: number;

  constructor(
    private readonly table: Table,
    /** 0 turns the budget off: no reads, no writes. */
    readonly limitPerHour: number,
    private readonly now: () => number = Date.now,
    /** The part of the hour's units one repository may hold, 0..1; 1 (the whole) when absent. */
    repositoryShare = 1,
  ) {
    if (!(repositoryShare > 0 && repositoryShare <= 1)) {
      throw new Error(`retry budget: a repository's share must be in (0, 1], got ${repositoryShare}`);
    }
    this.repositoryLimit = Math.max(1, Math.ceil(limitPerHour * repositoryShare));
    if (!Number.isInteger(limitPerHour) || limitPerHour < 0 || limitPerHour > MAX_BUDGET_PER_HOUR) {
      throw new Error(
        `retry budget: expected a whole number ≥ 0 and ≤ ${MAX_BUDGET_PER_HOUR} per hour, got ${limitPerHour}`,
      );
    }
    this.windows = versionedItemsOf(table);
  }

  async usage(installationId: number | null, repositoryId?: number): Promise<BudgetUsage> {
    if (this.limitPerHour === 0) return { limit: 0, used: 0 };
    const item = await this.table.get<WindowItem>(keys.budgetWindow(installationId), true);
    const live = this.live(item);
    return {
      limit: this.limitPerHour,
      used: live.length,
      ...(repositoryId !== undefined && { repository: this.repositoryUsage(live, String(repositoryId)) }),
    };
  }

  async take(installationId: number | null, attemptKey: string): Promise<BudgetTake> {
    if (this.limitPerHour === 0) return { taken: true };
    return this.update<BudgetTake>(installationId, (live, now) => {
      if (live.some((s) => s.k === attemptKey)) return { result: { taken: true } };
      const repository = this.repositoryUsage(live, repositoryOf(attemptKey));
      if (live.length >= this.limitPerHour || repository.used >= repository.limit) {
        return { result: { taken: false, limit: this.limitPerHour, used: live.length, repository } };
      }
      return { result: { taken: true }, spends: [...live, { k: attemptKey, at: now }] };
    });
  }

  private repositoryUsage(live: readonly Spend[], repository: string): { limit: number; used: number } {
    return { limit: this.repositoryLimit, used: live.filter((s) => repositoryOf(s.k) === repository).length };
  }

  async giveBack(installationId: number | null, attemptKey: string): Promise<void> {
    if (this.limitPerHour === 0) return;
    await this.update<undefined>(installationId, (live) =>
      live.some((s) => s.k === attemptKey)
        ? { result: undefined, spends: live.filter((s) => s.k !== attemptKey) }
        : { result: undefined },
    );
  }

  /** The units of the rolling hour. */
  private live(item: WindowItem | undefined, now = this.now()): Spend[] {
    return (item?.spends ?? []).filter((s) => s.at > now - HOUR_MS);
  }

  /** Reads the window, lets `change` answer (and maybe replace the units), writes it back if nobody wrote meanwhile. */
  private async update<R>(
    installationId: number | null,
    change: (live: Spend[], now: number) => { result: R; spends?: Spend[] },
  ): Promise<R> {
    return this.windows.change<WindowItem, R>(
      keys.budgetWindow(installationId),
      (item) => {
        const now = this.now();
        const { result, spends } = change(this.live(item, now), now);
        return { result, write: spends && { spends, ttl: ttlFrom(now, TTL.budgetWindow) } };
      },
      () => `retry budget: could not write the window of installation ${installationId} (contention)`,
    );
  }
}
