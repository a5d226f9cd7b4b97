import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { RunnerSignal, SignalKind } from '../model.js';
import type { SignalFact } from '../records.js';
import { keys, ttlFrom } from './keys.js';
import { Table } from './table.js';

/** A signal as recorded: the facts a report reads, and where the event came from. */
export interface SignalRecordInput extends SignalFact {
  readonly region?: string;
  readonly account?: string;
  readonly reason?: string;
}

/** Runner signals (one item per runner key and event) and the first-seen markers of agent posts. */
export class RunnerSignalTable {
  private readonly table: Table;

  constructor(
    client: DynamoDBClient,
    tableName: string,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    this.table = new Table(client, tableName);
  }

  /** Writes one record; false when this event was already recorded. */
  record(input: SignalRecordInput): Promise<boolean> {
    const at = Date.parse(input.eventTime);
    if (Number.isNaN(at)) throw new Error(`signal eventTime is not a date: ${JSON.stringify(input.eventTime)}`);
    // One ISO form, so the sort key's time order is the string order.
    const r = { ...input, eventTime: new Date(at).toISOString() };
    return this.table.putIf(
      { ...keys.runnerSignal(r.runnerKey, r.eventTime, r.eventId), ...r, ttl: ttlFrom(this.now(), this.ttlSeconds) },
      { expression: 'attribute_not_exists(#pk)' },
    );
  }

  /** A runner key's signals with event times from `fromIso` to `toIso`. */
  async between(runnerKey: string, fromIso: string, toIso: string): Promise<RunnerSignal[]> {
    const items = await this.table.query(keys.runnerSignalsBetween(runnerKey, fromIso, toIso));
    return items.map((item) => ({
      runnerKey: item.runnerKey as string,
      kind: item.kind as SignalKind,
      eventTime: item.eventTime as string,
      source: item.source as string,
      ...(item.instanceId ? { instanceId: item.instanceId as string } : {}),
    }));
  }

  /**
   * The time of a post that carries none: the first receipt of its event id, so a retry lands on
   * the same record key. A marker older than `horizonMs` belongs to an earlier event (node
   * names are reused), so it is replaced.
   */
  async firstSeen(eventId: string, nowMs: number, horizonMs: number): Promise<string> {
    const key = keys.signalPost(eventId);
    const at = new Date(nowMs).toISOString();
    const marked = await this.table.putIf(
      { ...key, eventTime: at, seenMs: nowMs, ttl: ttlFrom(nowMs, (2 * horizonMs) / 1000) },
      { expression: 'attribute_not_exists(#pk) OR #seenMs < :stale', values: { ':stale': nowMs - horizonMs } },
    );
    if (marked) return at;
    const got = await this.table.get<{ eventTime?: unknown }>(key, true);
    return typeof got?.eventTime === 'string' ? got.eventTime : at;
  }
}
