import { describe, expect, it } from 'vitest';
import { exactSignals } from '../../lib/classify/exact-signals.js';
import type { RunnerSignal, SignalKind } from '../../lib/model.js';

const signal = (kind: SignalKind): RunnerSignal => ({
  runnerKey: 'i-0123456789abcdef0',
  kind,
  eventTime: '2026-10-02T16:15:00.000Z',
  source: 'aws.ec2',
});

describe('exactSignals: which runner signals prove a loss', () => {
  it.each<[SignalKind, boolean]>([
    ['spot-interruption', true],
    ['terminated', true],
    ['external', true],
    ['rebalance', false],
  ])('%s is exact: %s', (kind, exact) => {
    expect(exactSignals([signal(kind)])).toHaveLength(exact ? 1 : 0);
  });

  it('keeps the order of the exact ones among the rest', () => {
    const all = [signal('rebalance'), signal('terminated'), signal('spot-interruption')];
    expect(exactSignals(all).map((s) => s.kind)).toEqual(['terminated', 'spot-interruption']);
  });
});
