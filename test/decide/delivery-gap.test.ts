import { describe, expect, it } from 'vitest';
import {
  deliveryFailed,
  type DeliveryGap,
  type GapScope,
  type LoggedDelivery,
  readPage,
  recordMayDecide,
} from '../../lib/decide/delivery-gap.js';

const START = Date.parse('2026-12-05T10:00:00Z');
const scope: GapScope = { installationId: 7, repositoryId: 70, sinceMs: START };
const at = (minutes: number) => new Date(START + minutes * 60_000).toISOString();
const d = (over: Partial<LoggedDelivery>): LoggedDelivery => ({
  guid: 'g',
  delivered_at: at(5),
  status_code: 502,
  event: 'workflow_run',
  installation_id: 7,
  repository_id: 70,
  ...over,
});

describe('issue 42 point 7: a failed delivery since the run started means the record may have missed a newer run', () => {
  it.each<{ rule: string; page: LoggedDelivery[]; missed: string | undefined; reachedStart: boolean }>([
    {
      rule: 'a failed workflow_run delivery of the scope since the start: missed',
      page: [d({})],
      missed: 'g',
      reachedStart: false,
    },
    { rule: 'a timeout (status 0) is a failure', page: [d({ status_code: 0 })], missed: 'g', reachedStart: false },
    { rule: 'a 3xx is not a delivery', page: [d({ status_code: 302 })], missed: 'g', reachedStart: false },
    {
      rule: 'delivered at the start exactly counts',
      page: [d({ delivered_at: at(0) })],
      missed: 'g',
      reachedStart: false,
    },
    { rule: 'a 2xx is delivered', page: [d({ status_code: 202 })], missed: undefined, reachedStart: false },
    {
      rule: 'another event does not carry runs',
      page: [d({ event: 'check_run' })],
      missed: undefined,
      reachedStart: false,
    },
    { rule: 'another installation’s', page: [d({ installation_id: 8 })], missed: undefined, reachedStart: false },
    { rule: 'another repository’s', page: [d({ repository_id: 71 })], missed: undefined, reachedStart: false },
    {
      rule: 'the log names no repository: it counts',
      page: [d({ repository_id: null })],
      missed: 'g',
      reachedStart: false,
    },
    {
      rule: 'a failure a later attempt of the same delivery made good (read first: newest first)',
      page: [d({ status_code: 202, delivered_at: at(9) }), d({})],
      missed: undefined,
      reachedStart: false,
    },
    {
      rule: 'a failure before the run started ends the reading, and does not count',
      page: [
        d({ status_code: 200, guid: 'ok' }),
        d({ delivered_at: at(-1) }),
        d({ guid: 'later', delivered_at: at(-2) }),
      ],
      missed: undefined,
      reachedStart: true,
    },
  ])('$rule', ({ page, missed, reachedStart }) => {
    const read = readPage(page, scope, new Set());
    expect(read.missed?.guid).toBe(missed);
    expect(read.reachedStart).toBe(reachedStart);
  });

  it('a success read on an earlier page makes good a failure on a later one', () => {
    const delivered = new Set<string>();
    readPage([d({ status_code: 200, delivered_at: at(9) })], scope, delivered);
    expect(readPage([d({})], scope, delivered).missed).toBeUndefined();
  });

  it('a scope with no installation (a delivery that named none) counts every installation’s', () => {
    expect(readPage([d({ installation_id: 8 })], { ...scope, installationId: null }, new Set()).missed?.guid).toBe('g');
  });

  it.each<[DeliveryGap, boolean]>([
    [{ kind: 'none' }, true],
    [{ kind: 'no_log' }, true],
    [{ kind: 'missed', guid: 'g', statusCode: 502, deliveredAt: at(5) }, false],
    [{ kind: 'unread', reason: 'HTTP 500' }, false],
  ])('the record may decide after %j: %s', (gap, may) => {
    expect(recordMayDecide(gap)).toBe(may);
  });

  it.each([
    [200, false],
    [204, false],
    [0, true],
    [302, true],
    [404, true],
    [502, true],
  ])('status %i failed: %s', (status, failed) => {
    expect(deliveryFailed(status)).toBe(failed);
  });
});
