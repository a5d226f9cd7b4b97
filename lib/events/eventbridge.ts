import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { TransientError } from '../errors.js';
import type { EventPublisher, RepriseEvent } from './types.js';
import { DETAIL_TYPES, EVENT_SOURCE } from './kinds.js';

/** Publishes each event to an EventBridge bus (the account's default bus unless named). */
export class EventBridgeEvents implements EventPublisher {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly busName = 'default',
  ) {}

  async publish(event: RepriseEvent): Promise<void> {
    const out = await this.client.send(
      new PutEventsCommand({
        Entries: [
          {
            Source: EVENT_SOURCE,
            DetailType: DETAIL_TYPES[event.kind],
            Detail: JSON.stringify(event),
            EventBusName: this.busName,
            Time: new Date(event.time),
          },
        ],
      }),
    );
    // PutEvents answers 200 with per-entry failures: a refused entry is a fault like any other.
    if ((out.FailedEntryCount ?? 0) > 0) {
      const entry = out.Entries?.[0];
      throw new TransientError(`EventBridge refused the event: ${entry?.ErrorCode ?? ''} ${entry?.ErrorMessage ?? ''}`);
    }
  }
}
