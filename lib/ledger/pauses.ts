import { keys, TTL, ttlFrom } from './keys.js';
import type { Table } from './table.js';

/**
 * What a pause holds: every installation (`*`), one owner (`octo-org`) or one repository
 * (`octo-org/app`). Owners and repositories are matched without regard to case, as GitHub does.
 */
export type PauseScope = string;

/** The scope that holds everything. */
export const EVERYTHING: PauseScope = '*';

/** A pause as the ledger keeps it: who, why, since and until when (null: until resumed). */
export interface Pause {
  readonly scope: PauseScope;
  readonly by: string;
  readonly reason: string;
  /** ISO 8601. */
  readonly since: string;
  /** ISO 8601, or null for a pause that lasts until `reprise resume`. */
  readonly until: string | null;
}

/** An operator's request to pause reprise for an installation or a repository, until a time or until resumed. */
export interface PauseRequest {
  readonly scope: PauseScope;
  readonly by: string;
  readonly reason: string;
  /** How long it lasts; until resumed when absent. */
  readonly forMs?: number;
}

/**
 * The operator's off switch, read by the worker before every re-run: one item per scope, each
 * written and removed by a single-item conditional write, with a TTL past its end.
 */
export interface Pauses {
  /** Writes the pause; `replaced` is the pause of the same scope it took the place of, if one held. */
  pause(request: PauseRequest): Promise<{ readonly pause: Pause; readonly replaced?: Pause }>;
  /** Removes the pause of `scope`; the pause removed, or undefined when none held. */
  resume(scope: PauseScope): Promise<Pause | undefined>;
  /** Every pause in force now, widest first. */
  list(): Promise<Pause[]>;
  /** The pause that holds `owner/name` now (the widest, when several do), or undefined. */
  active(owner: string, name: string): Promise<Pause | undefined>;
}

/**
 * `*`, `OWNER` or `OWNER/REPO`, lower-cased; undefined (everything) when absent. Anything else
 * (a run reference, spaces, several slashes) is refused with the reason.
 */
export function parsePauseScope(raw: string | undefined): PauseScope {
  if (raw === undefined || raw === '' || raw === EVERYTHING) return EVERYTHING;
  if (!/^[A-Za-z0-9][A-Za-z0-9-]*(\/[A-Za-z0-9._-]+)?$/.test(raw)) {
    throw new RangeError(`expected OWNER or OWNER/REPO, got "${raw}"`);
  }
  return raw.toLowerCase();
}

/** The scopes that hold a repository, widest first. */
export const scopesOf = (owner: string, name: string): PauseScope[] => {
  const o = owner.toLowerCase();
  return [EVERYTHING, o, `${o}/${name.toLowerCase()}`];
};

/** How a pause reads in a decision's reason, `status`, `explain` and the report. */
export function describePause(p: Pause): string {
  const what = p.scope === EVERYTHING ? 'every repository' : p.scope;
  const until = p.until ? `until ${p.until}` : 'until resumed';
  return `${what} paused by ${p.by} since ${p.since}, ${until}: ${p.reason}`;
}

interface StoredPause extends Pause {
  readonly untilMs: number | null;
}

/** The pauses on the table. A pause whose end has passed is the same as none. */
export class TablePauses implements Pauses {
  constructor(
    private readonly table: Table,
    private readonly now: () => number = Date.now,
  ) {}

  async pause(r: PauseRequest): Promise<{ pause: Pause; replaced?: Pause }> {
    const now = this.now();
    const untilMs = r.forMs === undefined ? null : now + r.forMs;
    const pause: Pause = {
      scope: r.scope,
      by: r.by,
      reason: r.reason,
      since: new Date(now).toISOString(),
      until: untilMs === null ? null : new Date(untilMs).toISOString(),
    };
    const ttl = untilMs === null ? ttlFrom(now, TTL.pause) : ttlFrom(untilMs, TTL.pauseAfterEnd);
    const key = keys.pause(r.scope);
    // The pause it replaces is read first; the write holds only if that is still what is there.
    for (let tries = 0; tries < 5; tries++) {
      const before = await this.table.get<StoredPause>(key, true);
      const written = await this.table.putIf(
        { ...key, ...pause, untilMs, ttl },
        before
          ? { expression: '#since = :since', values: { ':since': before.since } }
          : { expression: 'attribute_not_exists(#pk)' },
      );
      if (written) {
        const replaced = before && this.inForce(before, now) ? toPause(before) : undefined;
        return { pause, ...(replaced && { replaced }) };
      }
    }
    throw new Error(`the pause of ${r.scope} kept changing while it was written; try again`);
  }

  async resume(scope: PauseScope): Promise<Pause | undefined> {
    const key = keys.pause(scope);
    const before = await this.table.get<StoredPause>(key, true);
    if (!before) return undefined;
    const removed = await this.table.deleteIf(key, {
      expression: '#since = :since',
      values: { ':since': before.since },
    });
    // Another resume (or a new pause) got there first: what holds now is theirs to report.
    if (!removed) return undefined;
    return this.inForce(before, this.now()) ? toPause(before) : undefined;
  }

  async list(): Promise<Pause[]> {
    const now = this.now();
    const items = await this.table.query<StoredPause>(keys.pauses(), true);
    const order = (p: Pause) => (p.scope === EVERYTHING ? 0 : p.scope.includes('/') ? 2 : 1);
    return items
      .filter((p) => this.inForce(p, now))
      .map(toPause)
      .sort((a, b) => order(a) - order(b) || a.scope.localeCompare(b.scope));
  }

  async active(owner: string, name: string): Promise<Pause | undefined> {
    const held = new Set(scopesOf(owner, name));
    return (await this.list()).find((p) => held.has(p.scope));
  }

  /** DynamoDB removes expired items late (within days): the end time is what counts. */
  private inForce(p: StoredPause, now: number): boolean {
    return p.untilMs === null || p.untilMs === undefined || p.untilMs > now;
  }
}

const toPause = (p: StoredPause): Pause => ({
  scope: p.scope,
  by: p.by,
  reason: p.reason,
  since: p.since,
  until: p.until ?? null,
});
