import { DeleteCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../lib/ledger/keys.js';
import { nextCursor, redeliveryWindowMs } from '../../lib/reconcile/deliveries.js';
import { startHarness, TABLE, type Harness } from '../support/harness.js';
import { kit } from '../support/reconcile-kit.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** The table's raw items, as the tests inspect (and, for a cold start, delete) them. */
const raw = (h: Harness) => DynamoDBDocumentClient.from(h.dynamo.client);

describe('reconciler: missed deliveries', () => {
  let h: Harness;
  let redelivered: string[];
  beforeEach(async () => {
    h = await startHarness();
    redelivered = [];
    h.sim.onRedeliver = ({ guid }) => {
      redelivered.push(guid);
      return 202;
    };
  });
  afterEach(async () => h.close());

  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
  const failedRun = (guid: string, statusCode = 502, deliveredAt = ago(MINUTE)) =>
    h.sim.addDelivery({ guid, event: 'workflow_run', action: 'completed', statusCode, deliveredAt });

  it('redelivers once each failed workflow_run completion without a success, within the 3-day window', async () => {
    failedRun('lost-502');
    failedRun('lost-timeout', 0);
    failedRun('recovered', 500, ago(10 * MINUTE));
    h.sim.addDelivery({
      guid: 'recovered',
      event: 'workflow_run',
      action: 'completed',
      statusCode: 202,
      redelivery: true,
    });
    h.sim.addDelivery({ guid: 'job-event', event: 'workflow_job', action: 'completed', statusCode: 500 });
    h.sim.addDelivery({ guid: 'requested', event: 'workflow_run', action: 'requested', statusCode: 500 });
    failedRun('too-old', 502, ago(4 * DAY));
    h.sim.addDelivery({ guid: 'fine', event: 'workflow_run', action: 'completed', statusCode: 202 });

    const k = kit(h);
    const counts = await k.reconciler.sweep();
    expect(redelivered.sort()).toEqual(['lost-502', 'lost-timeout']);
    expect(counts).toMatchObject({ redelivered: 2, failed: false });
    expect(k.metrics.get('Redelivered')).toBe(2);
    expect(h.sim.count('POST', /\/app\/hook\/deliveries\/\d+\/attempts$/)).toBe(2);
  });

  it('a sweep when GitHub lists no delivery at all succeeds, and so does the next', async () => {
    const k = kit(h);
    expect(await k.reconciler.sweep()).toMatchObject({ failed: false, redelivered: 0 });
    expect(await k.reconciler.sweep()).toMatchObject({ failed: false, redelivered: 0 });
    expect(k.metrics.get('SweepFailed')).toBe(0);
  });

  it('never repeats a redelivery, not even after a cold start that lost the cursor', async () => {
    failedRun('once');
    await kit(h).reconciler.sweep();
    expect(redelivered).toEqual(['once']);
    // The redelivery failed at the receiver too: GitHub lists one more failed attempt of the guid.
    failedRun('once', 503);
    await kit(h).reconciler.sweep();
    await raw(h).send(new DeleteCommand({ TableName: TABLE, Key: keys.reconcileCursor('deliveries') }));
    await kit(h).reconciler.sweep();
    expect(redelivered).toEqual(['once']);
    const record = await raw(h).send(new GetCommand({ TableName: TABLE, Key: keys.redelivery('once') }));
    expect(record.Item).toMatchObject({ deliveryId: expect.any(Number) as number });
  });

  it('pages through the deliveries from a cursor stored in DynamoDB, a page limit per sweep', async () => {
    const guids: string[] = [];
    for (let i = 0; i < 45; i++) {
      const guid = `g-${i}`;
      if (i % 5 === 0) {
        failedRun(guid);
        guids.push(guid);
      } else {
        h.sim.addDelivery({ guid, event: 'workflow_run', action: 'completed', statusCode: 202 });
      }
    }
    const limits = { deliveryPages: 2, deliveriesPerPage: 5 };
    const pages: number[] = [];
    for (let sweep = 0; sweep < 10 && redelivered.length < guids.length; sweep++) {
      pages.push((await kit(h, { limits }).reconciler.sweep()).deliveryPages);
    }
    expect(redelivered.sort()).toEqual([...guids].sort());
    expect(Math.max(...pages)).toBe(2);
    expect(pages.length).toBeGreaterThanOrEqual(4);
    const cursor = async () =>
      (await raw(h).send(new GetCommand({ TableName: TABLE, Key: keys.reconcileCursor('deliveries') }))).Item?.state as
        { next?: string; doneTop?: number } | undefined;
    for (let sweep = 0; sweep < 10 && (await cursor())?.next !== undefined; sweep++) {
      await kit(h, { limits }).reconciler.sweep();
    }
    expect((await cursor())?.doneTop).toBeGreaterThan(0);

    // A new failure after a whole pass: the next pass reads what is newer than the last one
    // (the failure and the 9 redeliveries) and stops, instead of walking all 11 pages again.
    h.sim.resetRequests();
    failedRun('late');
    await kit(h, { limits: { deliveriesPerPage: 5 } }).reconciler.sweep();
    expect(redelivered).toContain('late');
    expect(h.sim.count('GET', /\/app\/hook\/deliveries$/)).toBe(3);
  });

  it('a redelivery GitHub fails to take is asked again by a later sweep, once', async () => {
    failedRun('flaky');
    h.sim.injectFault({ method: 'POST', path: /\/app\/hook\/deliveries\/\d+\/attempts$/, status: 502, times: 8 });
    const k = kit(h);
    const first = await k.reconciler.sweep();
    expect(first).toMatchObject({ redelivered: 0, failed: true });
    expect(k.metrics.get('RedeliveryFailed')).toBe(1);
    h.sim.clearFaults();
    expect(await k.reconciler.sweep()).toMatchObject({ redelivered: 1, failed: false });
    expect(await k.reconciler.sweep()).toMatchObject({ redelivered: 0 });
    expect(redelivered).toEqual(['flaky']);
  });

  it('skips a delivery the intake already accepted', async () => {
    failedRun('accepted-later');
    await h.ledger.deliveries.markSeen('accepted-later', 'workflow_run');
    await kit(h).reconciler.sweep();
    expect(redelivered).toEqual([]);
  });

  it.each([
    ['https://api.github.com', 3],
    ['https://ghe.example.com/api/v3', 7],
    ['https://ghe.example.com/api/v3/', 7],
    ['https://api.acme.ghe.com', 3],
  ])('the redelivery window of %s is %i days', (url, days) => {
    expect(redeliveryWindowMs(url)).toBe(days * DAY);
  });

  it('on GHES (an /api/v3 URL) a 5-day-old failure is still in the window; GitHub refusing it is recorded, never retried', async () => {
    failedRun('five-days', 502, ago(5 * DAY));
    const k = kit(h, { apiUrl: `${h.sim.url}/api/v3` });
    await k.reconciler.sweep();
    await raw(h).send(new DeleteCommand({ TableName: TABLE, Key: keys.reconcileCursor('deliveries') }));
    await k.reconciler.sweep();
    // The simulator keeps github.com's 3 days and answers 422: asked once, refusal recorded.
    expect(h.sim.count('POST', /\/app\/hook\/deliveries\/\d+\/attempts$/)).toBe(1);
    const record = await raw(h).send(new GetCommand({ TableName: TABLE, Key: keys.redelivery('five-days') }));
    expect(record.Item?.outcome).toBe('refused: too old');
  });

  it('reads the cursor of the next page from the Link header', () => {
    expect(
      nextCursor(
        '<https://api.github.com/app/hook/deliveries?per_page=2&cursor=v1_12077215967>; rel="next", <https://x/y>; rel="prev"',
      ),
    ).toBe('v1_12077215967');
    expect(nextCursor(undefined)).toBeUndefined();
    expect(nextCursor('<https://x/y?cursor=a>; rel="prev"')).toBeUndefined();
  });

  it('without App credentials (token mode) the deliveries are not swept', async () => {
    failedRun('token-mode');
    const counts = await kit(h, { app: false }).reconciler.sweep();
    expect(counts).toMatchObject({ deliveryPages: 0, failed: false });
    expect(redelivered).toEqual([]);
  });
});
