import type { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import { EventBridgeEvents } from '../../lib/events/eventbridge.js';
import type { RepriseEvent } from '../../lib/events/types.js';
import { TransientError } from '../../lib/errors.js';

describe('EventBridge adapter', () => {
  const event: RepriseEvent = {
    version: 1,
    kind: 'rerun_outcome',
    time: '2026-12-03T07:00:00.000Z',
    installation_id: 4242,
    repository: 'acme/events',
    run_id: 7,
    run_attempt: 2,
    outcome: 'lost_again',
  };
  const client = (answer: object) => {
    const sent: PutEventsCommand[] = [];
    return {
      sent,
      client: { send: async (c: PutEventsCommand) => (sent.push(c), answer) } as unknown as EventBridgeClient,
    };
  };

  it('puts one entry: source reprise, the detail-type of its kind, the event as detail, on the default bus unless named', async () => {
    const d = client({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    await new EventBridgeEvents(d.client).publish(event);
    await new EventBridgeEvents(d.client, 'ci-events').publish(event);
    const entries = d.sent.map((c) => c.input.Entries);
    expect(entries.map((e) => e?.length)).toEqual([1, 1]);
    expect(entries[0]![0]).toMatchObject({
      Source: 'reprise',
      DetailType: 'Reprise Re-run Outcome',
      EventBusName: 'default',
    });
    expect(JSON.parse(entries[0]![0]!.Detail!)).toEqual(event);
    expect(entries[1]![0]!.EventBusName).toBe('ci-events');
  });

  it('throws when EventBridge refuses the entry (PutEvents answers 200 with a failed entry)', async () => {
    const d = client({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' }],
    });
    await expect(new EventBridgeEvents(d.client).publish(event)).rejects.toThrow(/ThrottlingException slow down/);
  });
});

describe('EventBridge adapter: what a refusal is', () => {
  it('a refused entry is a TransientError (the caller may try again), even when EventBridge gives no code', async () => {
    const client = { send: async () => ({ FailedEntryCount: 1 }) } as unknown as EventBridgeClient;
    const event: RepriseEvent = {
      version: 1,
      kind: 'rerun_outcome',
      time: '2026-12-03T07:00:00.000Z',
      installation_id: 1,
      repository: 'acme/events',
      run_id: 7,
      run_attempt: 2,
      outcome: 'failed',
    };
    await expect(new EventBridgeEvents(client).publish(event)).rejects.toBeInstanceOf(TransientError);
  });

  it("the entry carries the event's own time", async () => {
    const sent: PutEventsCommand[] = [];
    const client = {
      send: async (c: PutEventsCommand) => (sent.push(c), { FailedEntryCount: 0 }),
    } as unknown as EventBridgeClient;
    await new EventBridgeEvents(client).publish({
      version: 1,
      kind: 'rerun_outcome',
      time: '2026-12-03T07:00:00.000Z',
      installation_id: 1,
      repository: 'acme/events',
      run_id: 7,
      run_attempt: 2,
      outcome: 'failed',
    });
    expect(sent[0]!.input.Entries![0]!.Time).toEqual(new Date('2026-12-03T07:00:00.000Z'));
  });
});
