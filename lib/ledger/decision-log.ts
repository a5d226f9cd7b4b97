import type { AttemptRecord, DecisionFilter } from '../records.js';
import { STATE } from './attributes.js';
import { keys } from './keys.js';
import type { ScanStart, Table } from './table.js';

/** Recorded decisions, for listings. */
export interface DecisionLog {
  /** Decided run attempts, newest first, as the filter narrows them (50 at most unless it says). */
  list(filter?: DecisionFilter): Promise<AttemptRecord[]>;
}

/** The decision log on the table: decided attempts, newest first, for listings and the CLI. */
export class TableDecisionLog implements DecisionLog {
  constructor(private readonly table: Table) {}

  /** A scan: the table is small and this serves operators, not the hot path. */
  async list(filter: DecisionFilter = {}): Promise<AttemptRecord[]> {
    const out: AttemptRecord[] = [];
    let start: ScanStart | undefined;
    do {
      const page = await this.table.scanPage<AttemptRecord>(
        {
          expression: 'begins_with(#pk, :run) AND #state = :decided',
          values: { ':run': keys.runAttemptPrefixes.pk, ':decided': STATE.decided },
        },
        start,
      );
      out.push(...page.items);
      start = page.next;
    } while (start);
    return out
      .filter((r) => !filter.repository || r.repository === filter.repository)
      .filter((r) => filter.sinceMs === undefined || (r.decidedAt ?? 0) >= filter.sinceMs)
      .sort((a, b) => (b.decidedAt ?? 0) - (a.decidedAt ?? 0))
      .slice(0, filter.limit ?? 50);
  }
}
