import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppClient } from '../../lib/github/client.js';
import { deliverySucceeded, readDeliveryGap } from '../../lib/github/hook-deliveries.js';
import { GitHubSimulator, simAppPrivateKey } from '../sim/index.js';
import { MemoryLog } from '../support/memory-log.js';

describe('deliverySucceeded', () => {
  it.each([
    [200, true],
    [202, true],
    [302, true],
    [399, true],
    [0, false],
    [400, false],
    [401, false],
    [500, false],
    [503, false],
  ])('status %i: %s', (status_code, ok) => {
    expect(deliverySucceeded({ status_code })).toBe(ok);
  });
});

describe('issue 42 point 7: reading the delivery log back to the run’s start (simulator)', () => {
  let sim: GitHubSimulator;
  const START = Date.now() - 60 * 60_000;
  const scope = { installationId: 7, repositoryId: 70, sinceMs: START };
  const at = (minutes: number) => new Date(START + minutes * 60_000).toISOString();
  const pages = () => sim.count('GET', /\/app\/hook\/deliveries$/);
  beforeAll(async () => {
    sim = await GitHubSimulator.start();
  });
  afterAll(() => sim.close());
  const app = () =>
    createAppClient({
      apiUrl: sim.url,
      credentials: { kind: 'app', appId: '1234567', privateKey: simAppPrivateKey() },
      log: new MemoryLog(),
      retryBaseMs: 1,
    });
  const ok = { event: 'workflow_run', action: 'completed', statusCode: 200, installationId: 7, repositoryId: 70 };

  it('stops at the first page that reaches a delivery older than the run: one read, no further', async () => {
    sim.addDelivery({ ...ok, guid: 'old-failed', statusCode: 502, deliveredAt: at(-5) });
    for (let i = 0; i < 4; i++) sim.addDelivery({ ...ok, guid: `before-${i}`, deliveredAt: at(-4 + i) });
    for (let i = 0; i < 3; i++) sim.addDelivery({ ...ok, guid: `since-${i}`, deliveredAt: at(1 + i) });
    sim.resetRequests();
    // Newest first, two a page: the second page reaches the run's start; both pages are the App's requests.
    expect(await readDeliveryGap(app(), scope, { maxPages: 5, perPage: 2 })).toEqual({ kind: 'none', appRequests: 2 });
    expect(pages()).toBe(2);
    expect(sim.appRequests.map((r) => r.path)).toEqual(['/app/hook/deliveries', '/app/hook/deliveries']);
  });

  it('a failed workflow_run delivery on a later page since the start: missed', async () => {
    sim.addDelivery({ ...ok, guid: 'lost', statusCode: 0, deliveredAt: at(10) });
    for (let i = 0; i < 3; i++) sim.addDelivery({ ...ok, guid: `after-${i}`, deliveredAt: at(11 + i) });
    expect(await readDeliveryGap(app(), scope, { maxPages: 5, perPage: 2 })).toMatchObject({
      kind: 'missed',
      guid: 'lost',
      statusCode: 0,
    });
  });

  it('a log too long to reach the start within the pages, or one that fails, is unread', async () => {
    expect(await readDeliveryGap(app(), scope, { maxPages: 1, perPage: 1 })).toMatchObject({
      kind: 'unread',
      appRequests: 1,
    });
    sim.injectFault({ method: 'GET', path: /\/app\/hook\/deliveries$/, status: 500, times: 10 });
    expect(await readDeliveryGap(app(), scope)).toMatchObject({ kind: 'unread' });
    sim.clearFaults();
  });
});
