import { describe, expect, it } from 'vitest';
import { isRerunDecision, RERUN_DECISIONS, RERUN_OUTCOMES } from '../lib/model.js';

describe('isRerunDecision', () => {
  it('retried and retried_all re-ran something on GitHub', () => {
    expect(RERUN_DECISIONS).toEqual(['retried', 'retried_all']);
    for (const d of RERUN_DECISIONS) expect(isRerunDecision(d)).toBe(true);
  });

  it.each(['dry_run', 'rerun_rejected', 'requeued', 'duplicate', 'genuine_failure', 'RETRIED', '', undefined])(
    '%s re-ran nothing',
    (decision) => {
      expect(isRerunDecision(decision)).toBe(false);
    },
  );
});

describe('RERUN_OUTCOMES', () => {
  it('lists the four ways a re-run attempt ends, each once', () => {
    expect([...RERUN_OUTCOMES].sort()).toEqual(['cancelled', 'failed', 'lost_again', 'recovered']);
  });
});
