import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { DecisionKind, RunMessage } from '../model.js';
import { keys, TTL, ttlFrom } from './keys.js';

export interface AttemptRecord {
  readonly state: 'claimed' | 'decided';
  readonly owner: string;
  readonly claimedAt: number;
  readonly leaseUntil: number;
  readonly repository: string;
  readonly runId: number;
  readonly runAttempt: number;
  readonly installationId: number | null;
  /** The message that claimed it, so a sweep can decide the attempt again. */
  readonly message: string;
  readonly decision?: DecisionKind;
  readonly reason?: string;
  readonly decidedAt?: number;
  readonly details?: Record<string, unknown>;
}

export type ClaimResult = { readonly claimed: true } | { readonly claimed: false; readonly existing?: AttemptRecord };

const isConditionFailure = (err: unknown): boolean =>
  err instanceof ConditionalCheckFailedException || (err as Error)?.name === 'ConditionalCheckFailedException';

/**
 * The dedupe and attempt ledger: one table, single-item conditional writes only. A run
 * attempt is claimed before any re-run call, so concurrent or repeated deliveries yield one.
 */
export class Ledger {
  readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly table: string,
    private readonly now: () => number = Date.now,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  async isSeen(guid: string): Promise<boolean> {
    const out = await this.doc.send(new GetCommand({ TableName: this.table, Key: keys.delivery(guid) }));
    return out.Item !== undefined;
  }

  async markSeen(guid: string, event: string): Promise<void> {
    const now = this.now();
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...keys.delivery(guid), event, seenAt: now, ttl: ttlFrom(now, TTL.delivery) },
      }),
    );
  }

  async claim(msg: RunMessage, owner: string, leaseMs: number): Promise<ClaimResult> {
    const now = this.now();
    const item = {
      ...keys.runAttempt(msg.repository.id, msg.runId, msg.runAttempt),
      state: 'claimed',
      owner,
      claimedAt: now,
      leaseUntil: now + leaseMs,
      repository: `${msg.repository.owner}/${msg.repository.name}`,
      runId: msg.runId,
      runAttempt: msg.runAttempt,
      installationId: msg.installationId,
      message: JSON.stringify(msg),
      ttl: ttlFrom(now, TTL.runAttempt),
    };
    try {
      await this.doc.send(
        new PutCommand({ TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
      return { claimed: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      return { claimed: false, existing: await this.get(msg.repository.id, msg.runId, msg.runAttempt) };
    }
  }

  async get(repoId: number, runId: number, attempt: number): Promise<AttemptRecord | undefined> {
    const out = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: keys.runAttempt(repoId, runId, attempt), ConsistentRead: true }),
    );
    return out.Item as AttemptRecord | undefined;
  }

  /** Records the decision; only the claim's owner may. Returns false when the claim was lost. */
  async finalise(
    msg: RunMessage,
    owner: string,
    decision: DecisionKind,
    reason: string,
    details: Record<string, unknown> = {},
  ): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.runAttempt(msg.repository.id, msg.runId, msg.runAttempt),
          UpdateExpression: 'SET #state = :decided, decision = :d, reason = :r, decidedAt = :t, details = :x',
          ConditionExpression: '#state = :claimed AND #owner = :owner',
          ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':decided': 'decided',
            ':claimed': 'claimed',
            ':owner': owner,
            ':d': decision,
            ':r': reason,
            ':t': this.now(),
            ':x': details,
          },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  /** Gives a claim back (a transient fault before any re-run call) so a redelivery decides again. */
  async release(msg: RunMessage, owner: string): Promise<boolean> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.table,
          Key: keys.runAttempt(msg.repository.id, msg.runId, msg.runAttempt),
          ConditionExpression: '#state = :claimed AND #owner = :owner',
          ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner' },
          ExpressionAttributeValues: { ':claimed': 'claimed', ':owner': owner },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  /** Recorded decisions, newest first. A scan: the table is small and this serves operators, not the hot path. */
  async listDecisions(
    filter: { repository?: string; sinceMs?: number; limit?: number } = {},
  ): Promise<AttemptRecord[]> {
    const out: AttemptRecord[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new ScanCommand({
          TableName: this.table,
          ExclusiveStartKey: start,
          FilterExpression: 'begins_with(pk, :run) AND #state = :decided',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':run': 'RUN#', ':decided': 'decided' },
        }),
      );
      out.push(...((page.Items ?? []) as AttemptRecord[]));
      start = page.LastEvaluatedKey;
    } while (start);
    return out
      .filter((r) => !filter.repository || r.repository === filter.repository)
      .filter((r) => filter.sinceMs === undefined || (r.decidedAt ?? 0) >= filter.sinceMs)
      .sort((a, b) => (b.decidedAt ?? 0) - (a.decidedAt ?? 0))
      .slice(0, filter.limit ?? 50);
  }
}
