import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AttemptRecord, Ledger } from '../ledger/ledger.js';
import { keys, TTL, ttlFrom } from '../ledger/keys.js';
import type { DecisionKind } from '../model.js';

/** A run attempt item as stored, with its keys. */
export type StoredAttempt = AttemptRecord & { readonly pk: string; readonly sk: string; readonly ttl?: number };

/** What became of a run attempt re-run by reprise once the reconciler looked at the next attempt. */
export type FollowUp = 'delivered' | 'enqueued' | 'completed' | 'superseded' | 'expired';

type Key = Record<string, unknown>;

const isConditionFailure = (err: unknown): boolean =>
  err instanceof ConditionalCheckFailedException || (err as Error)?.name === 'ConditionalCheckFailedException';

/** Resolves to false when the write's condition did not hold; any other fault is thrown. */
async function conditional(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/**
 * The reconciler's reads and writes on the ledger table. Every write is one conditional
 * single-item write, so a sweep repeated, or two sweeps at once, change nothing twice.
 */
export class ReconcileStore {
  constructor(
    private readonly ledger: Ledger,
    private readonly now: () => number,
  ) {}

  private get doc() {
    return this.ledger.doc;
  }

  private get table() {
    return this.ledger.table;
  }

  async cursor<T extends object>(name: string): Promise<T | undefined> {
    const out = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: keys.reconcileCursor(name), ConsistentRead: true }),
    );
    return (out.Item?.state as T | undefined) ?? undefined;
  }

  async saveCursor(name: string, state: object): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        // Cursor state is plain JSON; unset fields are dropped rather than stored as undefined.
        Item: {
          ...keys.reconcileCursor(name),
          state: JSON.parse(JSON.stringify(state)) as object,
          ttl: ttlFrom(this.now(), TTL.reconcileCursor),
        },
      }),
    );
  }

  /**
   * One page of run attempts that may need the reconciler: claims whose lease ended, and
   * re-runs by reprise not yet followed up. `limit` bounds the items read, not the matches.
   */
  async scanAttempts(
    start: Key | undefined,
    limit: number,
    completedBefore: number,
  ): Promise<{ items: StoredAttempt[]; next: Key | undefined }> {
    const page = await this.doc.send(
      new ScanCommand({
        TableName: this.table,
        Limit: limit,
        ExclusiveStartKey: start,
        FilterExpression:
          'begins_with(pk, :run) AND begins_with(sk, :attempt) AND (' +
          '(#state = :claimed AND leaseUntil < :now) OR ' +
          '(#state = :decided AND decision IN (:retried, :retriedAll) AND attribute_not_exists(followUp) ' +
          'AND decidedAt < :before))',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':run': 'RUN#',
          ':attempt': 'ATTEMPT#',
          ':claimed': 'claimed',
          ':decided': 'decided',
          ':retried': 'retried',
          ':retriedAll': 'retried_all',
          ':now': this.now(),
          ':before': completedBefore,
        },
      }),
    );
    return { items: (page.Items ?? []) as StoredAttempt[], next: page.LastEvaluatedKey };
  }

  /** Records the decision of a claim whose worker died after its re-run call went through. */
  recordOrphan(rec: StoredAttempt, decision: DecisionKind, reason: string, details: object): Promise<boolean> {
    return conditional(
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: rec.pk, sk: rec.sk },
          UpdateExpression: 'SET #state = :decided, decision = :d, reason = :r, decidedAt = :t, details = :x',
          ...this.sameClaim(rec, {
            ':decided': 'decided',
            ':d': decision,
            ':r': reason,
            ':t': this.now(),
            ':x': details,
          }),
        }),
      ),
    );
  }

  /** Deletes the claim only if it is still the same one: same owner, same lease. */
  releaseOrphan(rec: StoredAttempt): Promise<boolean> {
    return conditional(
      this.doc.send(
        new DeleteCommand({ TableName: this.table, Key: { pk: rec.pk, sk: rec.sk }, ...this.sameClaim(rec) }),
      ),
    );
  }

  /** Puts a released claim back when its message could not be enqueued, so the next sweep tries again. */
  restoreClaim(rec: StoredAttempt): Promise<boolean> {
    return conditional(
      this.doc.send(
        new PutCommand({ TableName: this.table, Item: rec, ConditionExpression: 'attribute_not_exists(pk)' }),
      ),
    );
  }

  /**
   * Marks that this run attempt's claim is being released. Succeeds for the first claim ever
   * released, and again for that same claim (a sweep that stopped half-way); fails for any other.
   */
  markReclaim(rec: StoredAttempt, repoId: number): Promise<boolean> {
    const claim = `${rec.owner}@${rec.leaseUntil}`;
    return conditional(
      this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...keys.reclaim(repoId, rec.runId, rec.runAttempt),
            claim,
            releasedAt: this.now(),
            ttl: ttlFrom(this.now(), TTL.runAttempt),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR claim = :claim',
          ExpressionAttributeValues: { ':claim': claim },
        }),
      ),
    );
  }

  /** True the first time only: an orphan that is left alone is reported once. */
  markAbandoned(rec: StoredAttempt, repoId: number): Promise<boolean> {
    return conditional(
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.reclaim(repoId, rec.runId, rec.runAttempt),
          UpdateExpression: 'SET abandonedAt = :t',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(abandonedAt)',
          ExpressionAttributeValues: { ':t': this.now() },
        }),
      ),
    );
  }

  markFollowUp(rec: StoredAttempt, followUp: FollowUp, detail: string): Promise<boolean> {
    return conditional(
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: rec.pk, sk: rec.sk },
          UpdateExpression: 'SET followUp = :f, followUpDetail = :x, followUpAt = :t',
          ConditionExpression: '#state = :decided AND attribute_not_exists(followUp)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':f': followUp, ':x': detail, ':t': this.now(), ':decided': 'decided' },
        }),
      ),
    );
  }

  /** Claims the one redelivery of a delivery GUID; false when it was already asked for. */
  claimRedelivery(guid: string, deliveryId: number): Promise<boolean> {
    const now = this.now();
    return conditional(
      this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...keys.redelivery(guid), deliveryId, requestedAt: now, ttl: ttlFrom(now, TTL.redelivery) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  /** Gives the redelivery back after GitHub failed to take it, so a later sweep asks again. */
  async releaseRedelivery(guid: string): Promise<void> {
    await this.doc.send(new DeleteCommand({ TableName: this.table, Key: keys.redelivery(guid) }));
  }

  noteRedelivery(guid: string, outcome: string): Promise<boolean> {
    return conditional(
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.redelivery(guid),
          UpdateExpression: 'SET outcome = :o',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':o': outcome },
        }),
      ),
    );
  }

  private sameClaim(rec: StoredAttempt, values: Record<string, unknown> = {}) {
    return {
      ConditionExpression: '#state = :claimed AND #owner = :owner AND leaseUntil = :lease',
      ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner' },
      ExpressionAttributeValues: { ':claimed': 'claimed', ':owner': rec.owner, ':lease': rec.leaseUntil, ...values },
    };
  }
}
