import { keys, TTL, ttlFrom } from './keys.js';
import type { Table } from './table.js';

/** The webhook deliveries the intake accepted, by GUID: a repeat is told apart from a new one. */
export interface Deliveries {
  /** True when this delivery GUID was already accepted. */
  isSeen(guid: string): Promise<boolean>;
  markSeen(guid: string, event: string): Promise<void>;
}

/** Delivery GUIDs seen by the intake, so a redelivery is not enqueued twice. */
export class TableDeliveries implements Deliveries {
  constructor(
    private readonly table: Table,
    private readonly now: () => number,
  ) {}

  async isSeen(guid: string): Promise<boolean> {
    return (await this.table.get(keys.delivery(guid), false)) !== undefined;
  }

  async markSeen(guid: string, event: string): Promise<void> {
    const now = this.now();
    await this.table.put({ ...keys.delivery(guid), event, seenAt: now, ttl: ttlFrom(now, TTL.delivery) });
  }
}
