import { describe, expect, it } from 'vitest';
import type { LedgerSource } from '../../lib/cli/ledger-source.js';
import { checkLastSignal, checkPauses } from '../../lib/cli/status-ledger.js';
import type { Pause } from '../../lib/ledger/pauses.js';
import type { SignalFact } from '../../lib/records.js';

const NOW = Date.parse('2026-12-05T12:00:00Z');

function source(pauses: Pause[], signals: SignalFact[] = []): LedgerSource & { since: number[] } {
  const since: number[] = [];
  return {
    where: 'DynamoDB table t',
    since,
    list: async () => [],
    facts: async (s) => {
      since.push(s);
      return { decisions: [], outcomes: [], signals };
    },
    pauses: {
      list: async () => pauses,
      pause: () => Promise.reject(new Error('not written by status')),
      resume: () => Promise.reject(new Error('not written by status')),
    },
  };
}

describe('status: the pause', () => {
  it('skipped without a ledger source', async () => {
    expect(await checkPauses(undefined)).toMatchObject({ status: 'skip', detail: expect.stringContaining('--local') });
  });

  it('not paused is OK', async () => {
    expect(await checkPauses(source([]))).toEqual({
      name: 'pause',
      status: 'ok',
      detail: 'not paused: re-runs go ahead',
    });
  });

  it('a pause in force is a warning that shows who paused, why and until when, and how to resume', async () => {
    const c = await checkPauses(
      source([
        { scope: '*', by: 'ops@box', reason: 'incident 42', since: '2026-12-05T11:00:00.000Z', until: null },
        {
          scope: 'octo-org/app',
          by: 'ana',
          reason: 'drill',
          since: '2026-12-05T11:30:00.000Z',
          until: '2026-12-05T12:30:00.000Z',
        },
      ]),
    );
    expect(c.status).toBe('warn');
    expect(c.detail.split('\n')).toEqual([
      'every repository paused by ops@box since 2026-12-05T11:00:00.000Z, until resumed: incident 42',
      'octo-org/app paused by ana since 2026-12-05T11:30:00.000Z, until 2026-12-05T12:30:00.000Z: drill',
    ]);
    expect(c.fix).toMatch(/reprise resume/);
  });
});

describe('status: the last signal seen', () => {
  it('the newest signal of the last 7 days, with its kind, runner, instance and source', async () => {
    const s = source(
      [],
      [
        { runnerKey: 'i-0aaa', kind: 'rebalance', eventTime: '2026-12-04T09:00:00Z', eventId: 'e1', source: 'aws.ec2' },
        {
          runnerKey: 'i-0bbb',
          kind: 'spot-interruption',
          eventTime: '2026-12-05T11:58:00Z',
          eventId: 'e2',
          source: 'aws.ec2',
          instanceId: 'i-0bbb',
        },
      ],
    );
    const c = await checkLastSignal(s, NOW);
    expect(c).toEqual({
      name: 'last signal',
      status: 'ok',
      detail: '2026-12-05T11:58:00Z spot-interruption for runner i-0bbb (instance i-0bbb) from aws.ec2',
    });
    expect(s.since).toEqual([NOW - 7 * 24 * 3_600_000]);
  });

  it('none: says so and points at the drill', async () => {
    expect((await checkLastSignal(source([]), NOW)).detail).toMatch(/no runner signal in the last 7 days.*drill/);
  });
});
