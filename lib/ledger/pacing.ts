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
   * A re-run's slot when repositories take turns (round-robin from the first slot): a slot
   * within `share.aheadMs` of now is taken at once; a later turn is a place in the repository's
   * line, laid out in rounds (a repository's first waiting run before any repository's second),
   * and the run is told to ask again a little before it (`askAgainAt`). A run that asks again
   * (`share.returning`) takes its repository's first place. A pace without it treats every
   * repository as one.
   */
  reserveWithinShare?(installationId: number | null, latest: number, share: RepositoryShare): Promise<ShareReservation>;
}

/** The repository a reservation is for, in the rotation of the installation's turns. */
export interface RepositoryShare {
  /** The repository (its id), as the pace item records each slot's and each place's owner. */
  readonly repository: number;
  /** How far ahead a slot is taken at once; a turn later than this is a place in the line. */
  readonly aheadMs: number;
  /** The run already holds a place in its repository's line (it was told to ask again). */
  readonly returning?: boolean;
}

/** A re-run's turn: a slot, none in time, or a place in its repository's line and when to ask again. */
export type ShareReservation =
  | { readonly slotAt: number }
  /** No slot within `latest`: the run is expired. */
  | { readonly full: true }
  /** A place in the repository's line: the run asks again at this time, its slot not yet taken. */
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

/**
 * A place in the line not taken this long after its turn was told is given up: its run was
 * decided otherwise meanwhile (a person re-ran it, it went stale), and the place would hold a
 * turn for nobody.
 */
export const PLACE_STALE_MS = 15_000;

interface PaceItem {
  readonly slots?: number[];
  /** The repository of each slot (0: a report, or a reservation that named none). */
  readonly owners?: number[];
  /** The line: the repository of each waiting run's place, in turn order (no slot taken yet). */
  readonly line?: number[];
  /** The turn each place's run was last told (epoch ms). */
  readonly lineAt?: number[];
  readonly version?: number;
}

/** A waiting run's place in the line: its repository, and the turn it was told. */
interface Place {
  readonly repository: number;
  readonly at: number;
}

/** The pace as read: the slots of the window (time, owner) and the line, stale places dropped. */
interface PaceState {
  readonly held: (readonly [number, number])[];
  readonly line: Place[];
}

/** Where a reservation falls: its turn, its index in the line, and the place it takes if it holds one. */
interface Turn {
  readonly at: number;
  readonly index: number;
  readonly own: boolean;
}

/**
 * The shared pace of one installation's content-generating requests, in one table item per
 * installation: the slots reserved within the last hour, and the line of runs waiting for a
 * later turn. A reservation is a versioned read-modify-write (versioned.ts).
 *
 * GitHub counts requests in a rolling window, so the pace does too: slots are only the write
 * spacing apart, and no slot is closer than a minute to the one `perMinute` before it (nor
 * than an hour to the one `perHour` before it), each widened by the late allowance. Below its
 * limit an installation waits for nothing; a wave fills each window and waits for the next.
 * A request that leaves within the allowance after its slot keeps both limits as GitHub counts
 * them; one later than that must take a new slot (see `isLate`).
 *
 * When repositories take turns, a slot is taken only when it is near (`aheadMs`); a later turn
 * is a place in the line, whose times are laid out on the slots as they would follow, so a
 * repository that comes later takes its round's place ahead of another's later runs.
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
        const state = this.stateOf(item, now);
        const { held, line } = state;
        const turn = share ? this.turnOf(state, share, now) : this.after(state, line.length, now, false);
        const rest = turn.own ? line.filter((_, i) => i !== turn.index) : line;
        // A slot free now is always taken: the caller's `latest` was counted on its clock before
        // this read, and a slot that is here already cannot be too late. A returning run that
        // finds none in time gives its place up.
        if (latest !== undefined && turn.at > Math.max(latest, now)) {
          return { result: { full: true }, write: turn.own ? this.written(held, rest, now) : undefined };
        }
        if (!share || turn.own || turn.at <= now + share.aheadMs) {
          const next = [...held, [turn.at, share?.repository ?? 0] as const];
          return { result: { slotAt: turn.at }, write: this.written(next, rest, now) };
        }
        // Too far for a slot: the run holds (or keeps) its place, told when to ask again.
        const place = { repository: share.repository, at: turn.at };
        const placed = [...rest.slice(0, turn.index), place, ...rest.slice(turn.index)];
        const askAgainAt = Math.max(turn.at - share.aheadMs, now + 1_000);
        return { result: { askAgainAt }, write: this.written(held, placed, now) };
      },
      () => `pacing: could not reserve a slot for installation ${installationId} (contention)`,
    );
  }

  /** The pace item as of `now`: slots within the window (owners of items written before them: 0), stale places dropped. */
  private stateOf(item: PaceItem | undefined, now: number): PaceState {
    const slots = item?.slots ?? [];
    const owners = item?.owners?.length === slots.length ? item.owners : slots.map(() => 0);
    const horizon = this.limits.perHour > 0 ? HOUR_MS : MINUTE_MS;
    const held = slots
      .map((t, i) => [t, owners[i] ?? 0] as const)
      .filter(([t]) => t > now - horizon - LATE_ALLOWANCE_MS);
    const lineAt = item?.lineAt ?? [];
    const line = (item?.line ?? [])
      .map((repository, i) => ({ repository, at: lineAt[i] ?? now }))
      .filter((p) => p.at >= now - PLACE_STALE_MS);
    return { held, line };
  }

  /**
   * A share's turn. A returning run takes its repository's first place; any other takes the
   * place of its round: after every place of a repository with no more slots and places ahead
   * than it, before the first of one with more (a repository with nothing ahead is next).
   */
  private turnOf(state: PaceState, share: RepositoryShare, now: number): Turn {
    const { held, line } = state;
    const own = share.returning ? line.findIndex((p) => p.repository === share.repository) : -1;
    // Back at its time, the run takes the next free slot from the turn it was told (or, back
    // late, from a moment ago: a slot within the late allowance still keeps the limits), whoever's
    // places are ahead: their runs come back at their own times. A run asks twice at most.
    if (own >= 0) {
      const from = Math.max(line[own]!.at, now - LATE_ALLOWANCE_MS / 2);
      return {
        at: this.nextSlot(
          held.map(([t]) => t),
          from,
        ),
        index: own,
        own: true,
      };
    }
    const ahead = new Map<number, number>();
    const count = (repository: number): number => {
      const n = ahead.get(repository) ?? 0;
      ahead.set(repository, n + 1);
      return n;
    };
    for (const [t, owner] of held) if (t >= now) count(owner);
    const round = (ahead.get(share.repository) ?? 0) + line.filter((p) => p.repository === share.repository).length;
    let index = line.findIndex((p) => count(p.repository) > round);
    if (index < 0) index = line.length;
    return this.after(state, index, now, false);
  }

  /** The turn of the line's `index`-th place: the slots as they would follow the window's, one for each place before it. */
  private after(state: PaceState, index: number, now: number, own: boolean): Turn {
    const slots = state.held.map(([t]) => t);
    let at = this.nextSlot(slots, now);
    for (let i = 0; i < index; i++) {
      slots.push(at);
      at = this.nextSlot(slots, now);
    }
    return { at, index, own };
  }

  /** The item's new attributes: the newest slots the limits look back on, and the line. */
  private written(held: readonly (readonly [number, number])[], line: readonly Place[], now: number) {
    const keep = Math.max(1, this.limits.perHour, this.limits.perMinute);
    const slots = held.slice(-keep);
    const until = Math.max(now, slots.at(-1)?.[0] ?? now, ...line.map((p) => p.at));
    return {
      slots: slots.map(([t]) => t),
      owners: slots.map(([, o]) => o),
      line: line.map((p) => p.repository),
      lineAt: line.map((p) => p.at),
      ttl: ttlFrom(until, TTL.pacing),
    };
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
