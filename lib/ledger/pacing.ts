import { keys, TTL, ttlFrom } from './keys.js';
import type { Table } from './table.js';
import { type VersionedItems, versionedItemsOf } from './versioned.js';

/**
 * The pace of one installation's content-generating requests (re-runs, then reports), shared
 * by every worker: each request reserves a slot in time, and sends no earlier than its slot.
 */
export interface Pacing {
  /** Spacing of consecutive slots, in ms. */
  readonly spacingMs: number;
  /**
   * Reserves the next free slot of the installation and answers its time (epoch ms), or
   * undefined, reserving nothing, when the next free slot is later than `latest` (a slot free
   * now is taken whatever `latest` says).
   */
  reserve(installationId: number | null, latest?: number): Promise<number | undefined>;
  /**
   * A re-run's slot when repositories take turns: as `reserve`, but while the installation's
   * slots run further ahead than `share.aheadMs`, a repository that already holds a slot
   * there gets none now and is told when to ask again (the slot it would get, less `aheadMs`).
   * A pace without it treats every repository as one.
   */
  reserveWithinShare?(installationId: number | null, latest: number, share: RepositoryShare): Promise<ShareReservation>;
}

/** How far ahead one repository may hold the installation's slots while others may wait. */
export interface RepositoryShare {
  /** The repository (its id), as the pace item records each slot's owner. */
  readonly repository: number;
  readonly aheadMs: number;
}

/** A re-run's slot within its repository's share of the pace: a slot, none in time, or when to ask again. */
export type ShareReservation =
  | { readonly slotAt: number }
  /** No slot within `latest`: the run is expired. */
  | { readonly full: true }
  /** The repository holds its share of the slots ahead: it asks again at this time, reserving nothing now. */
  | { readonly askAgainAt: number };

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/**
 * How late a request may leave after its slot (the queue's whole-second visibility, the
 * re-read before the call) and still never make one more than the limit in GitHub's window:
 * slots are laid out over the window plus this allowance.
 */
export const LATE_ALLOWANCE_MS = 2_000;

/** The installation's pace: GitHub's secondary limits on content-generating requests, and the spacing between slots. */
export interface PaceLimits {
  /** Content-generating requests a minute per installation (GitHub: 80). */
  readonly perMinute: number;
  /** Per rolling hour (GitHub: 500); 0 sets no hourly limit. */
  readonly perHour: number;
  /** The least time between two slots: each process's own spacing of its writes (WRITE_SPACING_MS). */
  readonly spacingMs: number;
}

interface PaceItem {
  readonly slots?: number[];
  /** The repository of each slot (0: a report, or a reservation that named none). */
  readonly owners?: number[];
  readonly version?: number;
}

/**
 * The shared pace of one installation's content-generating requests, in one table item per
 * installation: the slots reserved within the last hour. A reservation takes the first slot
 * that keeps both limits, as a versioned read-modify-write (versioned.ts).
 *
 * GitHub counts requests in a rolling window, so the pace does too: slots are only the write
 * spacing apart, and no slot is closer than a minute to the one `perMinute` before it (nor
 * than an hour to the one `perHour` before it), each widened by the late allowance. Below its
 * limit an installation waits for nothing; a wave fills each window and waits for the next.
 * A request that leaves within the allowance after its slot keeps both limits as GitHub counts
 * them; one later than that must take a new slot (see `isLate`).
 */
export class TablePacing implements Pacing {
  readonly spacingMs: number;
  /** The pace items; a process's own reservations of one installation go one at a time. */
  private readonly paces: VersionedItems;

  constructor(
    table: Table,
    readonly limits: PaceLimits,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(limits.perMinute) || limits.perMinute < 1) {
      throw new Error(`pacing: expected a whole number ≥ 1 a minute, got ${limits.perMinute}`);
    }
    if (!Number.isInteger(limits.perHour) || limits.perHour < 0) {
      throw new Error(`pacing: expected a whole number ≥ 0 an hour, got ${limits.perHour}`);
    }
    if (!Number.isInteger(limits.spacingMs) || limits.spacingMs < 0) {
      throw new Error(`pacing: expected a spacing of whole milliseconds ≥ 0, got ${limits.spacingMs}`);
    }
    this.spacingMs = limits.spacingMs;
    this.paces = versionedItemsOf(table);
  }

  async reserve(installationId: number | null, latest?: number): Promise<number | undefined> {
    const got = await this.reserveNow(installationId, latest);
    return 'slotAt' in got ? got.slotAt : undefined;
  }

  reserveWithinShare(installationId: number | null, latest: number, share: RepositoryShare): Promise<ShareReservation> {
    return this.reserveNow(installationId, latest, share);
  }

  private async reserveNow(
    installationId: number | null,
    latest?: number,
    share?: RepositoryShare,
  ): Promise<ShareReservation> {
    // A lost race (another worker reserved meanwhile) reads its slot and takes the next one.
    return this.paces.change<PaceItem, ShareReservation>(
      keys.pacing(installationId),
      (item) => {
        const now = this.now();
        const held = item?.slots ?? [];
        // Items written before owners were kept: their slots belong to no repository.
        const owners = item?.owners?.length === held.length ? item.owners : held.map(() => 0);
        const at = this.nextSlot(held, now);
        // A slot free now is always taken: the caller's `latest` was counted on its clock before
        // this read, and a slot that is here already cannot be too late.
        if (latest !== undefined && at > Math.max(latest, now)) return { result: { full: true } };
        // Repositories take turns: one that holds a slot ahead does not take another beyond its
        // share while others may come, so a burst cannot fill the pace up to a neighbour's max wait.
        if (share && at > now + share.aheadMs && held.some((t, i) => t > now && owners[i] === share.repository)) {
          return { result: { askAgainAt: Math.max(at - share.aheadMs, now + 1_000) } };
        }
        const keep = Math.max(1, this.limits.perHour, this.limits.perMinute);
        const horizon = this.limits.perHour > 0 ? HOUR_MS : MINUTE_MS;
        const kept = held
          .map((t, i) => [t, owners[i] ?? 0] as const)
          .filter(([t]) => t > now - horizon - LATE_ALLOWANCE_MS);
        const next = [...kept, [at, share?.repository ?? 0] as const].slice(-keep);
        const write = {
          slots: next.map(([t]) => t),
          owners: next.map(([, o]) => o),
          ttl: ttlFrom(Math.max(now, at), TTL.pacing),
        };
        return { result: { slotAt: at }, write };
      },
      () => `pacing: could not reserve a slot for installation ${installationId} (contention)`,
    );
  }

  private nextSlot(slots: readonly number[], now: number): number {
    let at = now;
    const last = slots.at(-1);
    if (last !== undefined) at = Math.max(at, last + this.spacingMs);
    const { perMinute, perHour } = this.limits;
    if (slots.length >= perMinute) {
      at = Math.max(at, slots[slots.length - perMinute]! + MINUTE_MS + LATE_ALLOWANCE_MS);
    }
    if (perHour > 0 && slots.length >= perHour) {
      at = Math.max(at, slots[slots.length - perHour]! + HOUR_MS + LATE_ALLOWANCE_MS);
    }
    return at;
  }
}

/**
 * True when a request would leave too long after its slot to keep the limits as GitHub counts
 * them: it must take a new slot instead of going at once with the others that came back late.
 */
export const isLate = (slotAt: number, now: number): boolean => now > slotAt + LATE_ALLOWANCE_MS;
