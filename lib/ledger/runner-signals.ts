import type { SignalKind, SignalWindow } from '../model.js';
import type { RecordedSignal, SignalFact } from '../records.js';
import { type SignalScope, scopeTag } from '../config/signal-scope.js';
import { keys, ttlFrom } from './keys.js';
import type { Table } from './table.js';

/** A signal as recorded: the facts a report reads, and where the event came from. */
export interface SignalRecordInput extends SignalFact {
  readonly region?: string;
  readonly account?: string;
  readonly reason?: string;
  /** Whom the agent's secret speaks for; EC2 signals carry none and count for every installation. */
  readonly scope?: SignalScope;
}

/** Runner-keyed interruption records: the signal paths write them, the worker looks them up. */
export interface RunnerSignals {
  /**
   * Writes one record; false when this (runner key, event time, event id, scope) was already
   * recorded. The scope is part of the key: another scope's record of the same event never
   * suppresses this one.
   */
  record(input: SignalRecordInput): Promise<boolean>;
  /**
   * The time of a post that carries none: the first receipt of its event id, so a retry lands on
   * the same record key. A receipt older than `horizonMs` belongs to an earlier event (node
   * names are reused), so it is replaced. Kept per `scope`: another scope's post of the same
   * event id does not set this one's time.
   */
  firstSeen(eventId: string, nowMs: number, horizonMs: number, scope?: SignalScope): Promise<string>;
  /**
   * Signals recorded under any of `runnerKeys` around a job's completion (now when it has not
   * completed), each with the scope it was posted under: whom it counts for is the caller's call.
   */
  around(runnerKeys: readonly string[], completedAt: string | null, window: SignalWindow): Promise<RecordedSignal[]>;
  /**
   * Marks an HMAC signature used, until `untilMs` (when its timestamp leaves the window); false
   * when it was used already: the post is a replay.
   */
  firstUse(signature: string, untilMs: number): Promise<boolean>;
}

/**
 * Runner signals (one item per runner key and event) and the first-seen markers of agent posts.
 * The caller names the runner keys to look under (`RunnerKeys` derives them from a runner's name).
 */
export class TableRunnerSignals implements RunnerSignals {
  constructor(
    private readonly table: Table,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  record(input: SignalRecordInput): Promise<boolean> {
    const at = Date.parse(input.eventTime);
    if (Number.isNaN(at)) throw new Error(`signal eventTime is not a date: ${JSON.stringify(input.eventTime)}`);
    // One ISO form, so the sort key's time order is the string order.
    const r = { ...input, eventTime: new Date(at).toISOString() };
    const by = r.scope === undefined ? undefined : scopeTag(r.scope);
    return this.table.putIf(
      {
        ...keys.runnerSignal(r.runnerKey, r.eventTime, r.eventId, by),
        ...r,
        ttl: ttlFrom(this.now(), this.ttlSeconds),
      },
      { expression: 'attribute_not_exists(#pk)' },
    );
  }

  async around(
    runnerKeys: readonly string[],
    completedAt: string | null,
    window: SignalWindow,
  ): Promise<RecordedSignal[]> {
    const at = completedAt ? Date.parse(completedAt) : this.now();
    const from = new Date(at - window.beforeMs).toISOString();
    const to = new Date(at + window.afterMs).toISOString();
    const out: RecordedSignal[] = [];
    for (const key of runnerKeys) out.push(...(await this.between(key, from, to)));
    return out;
  }

  /** A runner key's signals with event times from `fromIso` to `toIso`. */
  private async between(runnerKey: string, fromIso: string, toIso: string): Promise<RecordedSignal[]> {
    const items = await this.table.query(keys.runnerSignalsBetween(runnerKey, fromIso, toIso));
    return items.map((item) => ({
      runnerKey: item.runnerKey as string,
      kind: item.kind as SignalKind,
      eventTime: item.eventTime as string,
      source: item.source as string,
      ...(item.instanceId ? { instanceId: item.instanceId as string } : {}),
      ...(item.scope !== undefined && { scope: item.scope as SignalScope }),
    }));
  }

  async firstUse(signature: string, untilMs: number): Promise<boolean> {
    const now = this.now();
    // The marker outlives the window; one past it (TTL not yet run) no longer blocks.
    return this.table.putIf(
      { ...keys.signalSignature(signature), untilMs, ttl: ttlFrom(Math.max(now, untilMs), 3600) },
      { expression: 'attribute_not_exists(#pk) OR #untilMs < :now', values: { ':now': now } },
    );
  }

  async firstSeen(eventId: string, nowMs: number, horizonMs: number, scope?: SignalScope): Promise<string> {
    const key = keys.signalPost(eventId, scope === undefined ? undefined : scopeTag(scope));
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
