import { SETTINGS } from '../config/settings-schema.js';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { RunnerSignalTable, type SignalRecordInput } from '../ledger/runner-signals.js';
import type { RunnerSignal, SignalWindow } from '../model.js';
import { RunnerKeys } from './runner-keys.js';

export type { SignalRecordInput } from '../ledger/runner-signals.js';

/** The signal window when none is configured (SIGNAL_WINDOW_BEFORE_SECONDS, SIGNAL_WINDOW_AFTER_SECONDS). */
export const DEFAULT_SIGNAL_WINDOW: SignalWindow = {
  beforeMs: SETTINGS.signalWindowBefore.default * 1000,
  afterMs: SETTINGS.signalWindowAfter.default * 1000,
};

/** Runner-keyed interruption records in the shared table. */
export class SignalStore {
  private readonly signals: RunnerSignalTable;

  constructor(
    client: DynamoDBClient,
    table: string,
    ttlSeconds: number,
    private readonly now: () => number = Date.now,
    private readonly keys: RunnerKeys = new RunnerKeys(),
  ) {
    this.signals = new RunnerSignalTable(client, table, ttlSeconds, now);
  }

  /** Writes one record; false when this event was already recorded. */
  record(input: SignalRecordInput): Promise<boolean> {
    return this.signals.record(input);
  }

  /** The first receipt time of an agent's event id, shared by its retries within `horizonMs`. */
  firstSeen(eventId: string, nowMs: number, horizonMs: number): Promise<string> {
    return this.signals.firstSeen(eventId, nowMs, horizonMs);
  }

  /** Signals for a runner (by name and by the instance id in it) around a job's completion. */
  async forRunner(
    runnerName: string | null,
    completedAt: string | null,
    window: SignalWindow,
  ): Promise<RunnerSignal[]> {
    const at = completedAt ? Date.parse(completedAt) : this.now();
    const from = new Date(at - window.beforeMs).toISOString();
    const to = new Date(at + window.afterMs).toISOString();
    const out: RunnerSignal[] = [];
    for (const key of this.keys.for(runnerName)) out.push(...(await this.signals.between(key, from, to)));
    return out;
  }
}
