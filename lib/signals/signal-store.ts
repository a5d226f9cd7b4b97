import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys, ttlFrom } from '../ledger/keys.js';
import type { RunnerSignal, SignalKind } from '../model.js';
import { runnerKeysFor } from './runner-keys.js';

export interface SignalRecordInput {
  readonly runnerKey: string;
  readonly kind: SignalKind;
  readonly eventTime: string;
  /** Makes the write idempotent: EventBridge delivers at least once. */
  readonly eventId: string;
  readonly source: string;
  readonly instanceId?: string;
  readonly region?: string;
  readonly account?: string;
  readonly reason?: string;
}

/** Which signals to trust for a job: from `before` ahead of its completion to `after` past it. */
export interface SignalWindow {
  readonly beforeMs: number;
  readonly afterMs: number;
}

export const DEFAULT_SIGNAL_WINDOW: SignalWindow = { beforeMs: 10 * 60_000, afterMs: 5 * 60_000 };

/** Runner-keyed interruption records in the shared table. */
export class SignalStore {
  readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly table: string,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  /** Writes one record; false when this event was already recorded. */
  async record(input: SignalRecordInput): Promise<boolean> {
    const at = Date.parse(input.eventTime);
    if (Number.isNaN(at)) throw new Error(`signal eventTime is not a date: ${JSON.stringify(input.eventTime)}`);
    // One ISO form, so the sort key's time order is the string order.
    const r = { ...input, eventTime: new Date(at).toISOString() };
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...keys.runnerSignal(r.runnerKey, r.eventTime, r.eventId),
            ...r,
            ttl: ttlFrom(this.now(), this.ttlSeconds),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException || (err as Error).name === 'ConditionalCheckFailedException') {
        return false;
      }
      throw err;
    }
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
    for (const key of runnerKeysFor(runnerName)) {
      const res = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': keys.runnerSignalPrefix(key),
            ':from': `SIGNAL#${from}`,
            ':to': `SIGNAL#${to}~`,
          },
        }),
      );
      for (const item of res.Items ?? []) {
        out.push({
          runnerKey: item.runnerKey as string,
          kind: item.kind as SignalKind,
          eventTime: item.eventTime as string,
          source: item.source as string,
          ...(item.instanceId ? { instanceId: item.instanceId as string } : {}),
        });
      }
    }
    return out;
  }
}
