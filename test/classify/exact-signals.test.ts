import { describe, expect, it } from 'vitest';
import { exactSignals, selfCausedStops } from '../../lib/classify/exact-signals.js';
import type { RunnerSignal, SignalKind } from '../../lib/model.js';

const INSTANCE = 'i-0123456789abcdef0';
const T = Date.parse('2026-10-02T16:15:00.000Z');

const signal = (
  kind: SignalKind,
  source = 'aws.ec2',
  atMs = T,
  instanceId: string | undefined = INSTANCE,
): RunnerSignal => ({
  runnerKey: INSTANCE,
  kind,
  eventTime: new Date(atMs).toISOString(),
  source,
  ...(instanceId !== undefined && { instanceId }),
});
/** An EC2 instance state change (`shutting-down` or `terminated`), as the EC2 signal function records it. */
const stateChange = (atMs = T, instanceId?: string) => signal('terminated', 'aws.ec2', atMs, instanceId ?? INSTANCE);

describe('exactSignals: which runner signals prove a loss', () => {
  it.each<[string, RunnerSignal, boolean]>([
    ['an EC2 spot interruption warning', signal('spot-interruption'), true],
    ['an Auto Scaling termination (recorded external)', signal('external'), true],
    ["an agent's terminated", signal('terminated', 'agent'), true],
    ["an agent's node termination (external)", signal('external', 'agent'), true],
    ["an agent's spot interruption", signal('spot-interruption', 'agent'), true],
    ['a rebalance recommendation', signal('rebalance'), false],
    ["an agent's rebalance", signal('rebalance', 'agent'), false],
    ['an EC2 state change alone', stateChange(), false],
    ['a terminated from any other path alone (not an agent)', signal('terminated', 'eventbridge'), false],
  ])('%s alone is exact: %s', (_what, s, exact) => {
    expect(exactSignals([s])).toHaveLength(exact ? 1 : 0);
  });

  it('keeps the order of the exact ones among the rest', () => {
    const all = [signal('rebalance'), signal('terminated', 'agent'), signal('spot-interruption')];
    expect(exactSignals(all).map((s) => s.kind)).toEqual(['terminated', 'spot-interruption']);
  });
});

describe('exact means from outside the workload: an EC2 state change counts only after a warning from outside', () => {
  it.each<[string, RunnerSignal[], boolean]>([
    ['a spot interruption warning two minutes before', [signal('spot-interruption', 'aws.ec2', T - 120_000)], true],
    ['a rebalance recommendation ten minutes before', [signal('rebalance', 'aws.ec2', T - 600_000)], true],
    ['an Auto Scaling termination before', [signal('external', 'aws.ec2', T - 30_000)], true],
    ['a warning at the same second', [signal('spot-interruption', 'aws.ec2', T)], true],
    ['nothing before it (a job ran sudo shutdown)', [], false],
    ['a spot warning only after it', [signal('spot-interruption', 'aws.ec2', T + 1_000)], false],
    [
      'a warning before it, for another instance under the same runner key',
      [signal('spot-interruption', 'aws.ec2', T - 60_000, 'i-0fedcba9876543210')],
      false,
    ],
    ['a warning naming no instance', [signal('rebalance', 'agent', T - 60_000, undefined)], true],
  ])('with %s → exact: %s', (_what, before, exact) => {
    const change = stateChange();
    const all = [...before, change];
    expect(exactSignals(all).includes(change)).toBe(exact);
    expect(selfCausedStops(all)).toEqual(exact ? [] : [change]);
  });

  it('a self-caused stop beside an agent’s signal: the agent’s is exact, the stop stays text strength', () => {
    const agent = signal('terminated', 'agent', T + 5_000);
    const change = stateChange();
    expect(exactSignals([change, agent])).toEqual([agent]);
    expect(selfCausedStops([change, agent])).toEqual([change]);
  });
});
