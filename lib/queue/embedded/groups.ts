/**
 * Where the embedded queue keeps its live messages (visible or in flight): per message group in
 * send order, by id, and by the receipt handle a consumer holds.
 */
import { isInFlight, type StoredMessage } from './message.js';

/** The live messages, by group in send order, by id and by receipt handle. */
export class MessageGroups {
  /** Per group, messages in send order; a group's entry is removed when empty. */
  private readonly groups = new Map<string, StoredMessage[]>();
  private readonly byId = new Map<string, StoredMessage>();
  private readonly byHandle = new Map<string, StoredMessage>();

  get size(): number {
    return this.byId.size;
  }

  get(messageId: string): StoredMessage | undefined {
    return this.byId.get(messageId);
  }

  /** The message a receipt handle was last given for; a stale handle finds nothing. */
  held(receiptHandle: string): StoredMessage | undefined {
    const message = this.byHandle.get(receiptHandle);
    return message?.receiptHandle === receiptHandle ? message : undefined;
  }

  messages(): IterableIterator<StoredMessage> {
    return this.byId.values();
  }

  ids(): IterableIterator<string> {
    return this.byId.keys();
  }

  /** Messages hidden at `now`: received and not yet visible again, or deferred. */
  inFlight(now: number): number {
    let n = 0;
    for (const message of this.byId.values()) if (isInFlight(message, now)) n++;
    return n;
  }

  /** When the next hidden message becomes visible; undefined when none is hidden. */
  nextVisibleAt(now: number): number | undefined {
    let next: number | undefined;
    for (const message of this.byId.values()) {
      if (isInFlight(message, now) && (next === undefined || message.visibleAt < next)) next = message.visibleAt;
    }
    return next;
  }

  /** The groups, the one whose first message was sent earliest first. */
  oldestFirst(): StoredMessage[][] {
    return [...this.groups.values()].sort((a, b) => (a[0]?.order ?? 0) - (b[0]?.order ?? 0));
  }

  /** At the tail of its group. */
  add(message: StoredMessage): void {
    const group = this.groups.get(message.groupId);
    if (group) group.push(message);
    else this.groups.set(message.groupId, [message]);
    this.byId.set(message.messageId, message);
  }

  /** The message will be known by this handle alone; the one it had before goes stale. */
  hand(message: StoredMessage, receiptHandle: string): void {
    this.dropHandle(message);
    this.byHandle.set(receiptHandle, message);
  }

  remove(message: StoredMessage): void {
    this.dropHandle(message);
    this.byId.delete(message.messageId);
    const group = this.groups.get(message.groupId);
    if (!group) return;
    const index = group.indexOf(message);
    if (index >= 0) group.splice(index, 1);
    if (group.length === 0) this.groups.delete(message.groupId);
  }

  private dropHandle(message: StoredMessage): void {
    if (message.receiptHandle !== undefined) this.byHandle.delete(message.receiptHandle);
  }
}
