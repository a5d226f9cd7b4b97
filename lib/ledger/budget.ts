import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { keys, TTL, ttlFrom } from './keys.js';
import { Table } from './table.js';

/** Per-installation re-runs in the rolling hour (the circuit breaker). */
export interface RetryBudget {
  usage(installationId: number | null): Promise<{ limit: number; used: number }>;
  spend(installationId: number | null, runKey: string): Promise<void>;
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * The per-installation circuit breaker: at most `limitPerHour` re-runs in any rolling hour.
 * One item per re-run (single-item writes only), counted by one Query over the last hour; TTL
 * removes the items afterwards, so the budget refills by itself as the window moves.
 *
 * `usage` and `spend` are separate calls, so concurrent workers of one installation can
 * overshoot the limit by at most their number: a breaker against a storm, not an exact quota.
 */
export class DynamoRetryBudget implements RetryBudget {
  private readonly table: Table;

  constructor(
    client: DynamoDBClient,
    tableName: string,
    /** 0 turns the breaker off: no reads, no writes. */
    readonly limitPerHour: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(limitPerHour) || limitPerHour < 0) {
      throw new Error(`retry budget: expected a whole number ≥ 0 per hour, got ${limitPerHour}`);
    }
    this.table = new Table(client, tableName);
  }

  async usage(installationId: number | null): Promise<{ limit: number; used: number }> {
    if (this.limitPerHour === 0) return { limit: 0, used: 0 };
    const since = new Date(this.now() - HOUR_MS).toISOString();
    const used = await this.table.count(keys.budgetSpentSince(installationId, since), true);
    return { limit: this.limitPerHour, used };
  }

  async spend(installationId: number | null, runKey: string): Promise<void> {
    if (this.limitPerHour === 0) return;
    const now = this.now();
    await this.table.put({
      ...keys.budgetSpend(installationId, new Date(now).toISOString(), runKey),
      installationId,
      runKey,
      ttl: ttlFrom(now, TTL.budgetSpend),
    });
  }
}
