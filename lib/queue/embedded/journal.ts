/**
 * The embedded queue's journal in the embedded DynamoDB: one item per message (its latest
 * snapshot) in a table of its own beside reprise's, so with `--data-dir` it lives on disk in the
 * same LevelDB as the ledger. dynalite answers a write once LevelDB has handed it to the
 * operating system, so what a flush confirmed survives the process being killed at any instant.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { JournalStore } from './journal-store.js';
import type { MessageSnapshot, QueueJournal } from './snapshot.js';

/** The journal's own table, beside the ledger's in the same embedded DynamoDB. */
export const QUEUE_TABLE_NAME = 'reprise-local-queue';

interface Waiter {
  readonly version: number;
  resolve(): void;
  reject(err: unknown): void;
}

/** One message's writes: one at a time, each of the latest snapshot. */
interface Entry {
  snapshot: () => MessageSnapshot | undefined;
  /** Bumped by each change; `written` is the version the last successful write covered. */
  version: number;
  written: number;
  writing: boolean;
  waiters: Waiter[];
}

/** The queue's journal on DynamoDB: each message's latest snapshot written one at a time, a flush awaiting them. */
export class DynamoQueueJournal implements QueueJournal {
  private readonly store: JournalStore;
  private readonly entries = new Map<string, Entry>();

  private constructor(
    client: DynamoDBClient,
    table: string,
    queue: string,
    private readonly onError: (err: unknown) => void,
  ) {
    this.store = new JournalStore(client, table, queue);
  }

  /** The journal of queue `queue`, its table created when missing. */
  static async open(
    client: DynamoDBClient,
    queue: string,
    opts: { table?: string; onError?: (err: unknown) => void } = {},
  ): Promise<DynamoQueueJournal> {
    const journal = new DynamoQueueJournal(
      client,
      opts.table ?? QUEUE_TABLE_NAME,
      queue,
      opts.onError ?? (() => undefined),
    );
    await journal.store.createTable();
    return journal;
  }

  /** The journal on a table that exists already (`open` creates it). */
  static onTable(
    client: DynamoDBClient,
    table: string,
    queue: string,
    onError: (err: unknown) => void = () => undefined,
  ): DynamoQueueJournal {
    return new DynamoQueueJournal(client, table, queue, onError);
  }

  /** Every snapshot on disk, for `EmbeddedFifoQueue.restore`. */
  async load(): Promise<MessageSnapshot[]> {
    return (await this.store.load()) as unknown as MessageSnapshot[];
  }

  changed(messageId: string, snapshot: () => MessageSnapshot | undefined): void {
    const entry = this.entries.get(messageId) ?? { version: 0, written: 0, writing: false, waiters: [], snapshot };
    entry.snapshot = snapshot;
    entry.version++;
    this.entries.set(messageId, entry);
    if (!entry.writing) void this.pump(messageId, entry);
  }

  flush(messageIds: readonly string[]): Promise<void> {
    return Promise.all(
      messageIds.map((id) => {
        const entry = this.entries.get(id);
        if (!entry || entry.written >= entry.version) return undefined;
        const wait = new Promise<void>((resolve, reject) =>
          entry.waiters.push({ version: entry.version, resolve, reject }),
        );
        // A write that failed is tried again by the next flush that waits for it.
        if (!entry.writing) void this.pump(id, entry);
        return wait;
      }),
    ).then(() => undefined);
  }

  /** Resolves once nothing is left to write (or to retry): for a clean shutdown. */
  async settle(): Promise<void> {
    await this.flush([...this.entries.keys()]).catch(() => undefined);
  }

  private async pump(messageId: string, entry: Entry): Promise<void> {
    entry.writing = true;
    while (entry.written < entry.version) {
      const version = entry.version;
      const snap = entry.snapshot();
      try {
        if (snap) await this.store.put(messageId, { ...snap });
        else await this.store.remove(messageId);
        entry.written = version;
        settle(entry, version);
      } catch (err) {
        this.onError(err);
        // Every waiter hears of it, later versions too: nothing retries until the next change or flush.
        settle(entry, Infinity, err);
        break;
      }
    }
    entry.writing = false;
    if (entry.written >= entry.version && entry.waiters.length === 0 && this.entries.get(messageId) === entry) {
      this.entries.delete(messageId);
    }
  }
}

function settle(entry: Entry, version: number, err?: unknown): void {
  const due = entry.waiters.filter((w) => w.version <= version);
  entry.waiters = entry.waiters.filter((w) => w.version > version);
  for (const w of due) {
    if (err === undefined) w.resolve();
    else w.reject(err);
  }
}
