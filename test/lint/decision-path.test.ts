import { describe, expect, it } from 'vitest';
import { DECISION_PATH, pathFigures, stepFault } from './decision-path.js';

describe('lint: the path of one decision, intake to re-run', () => {
  it.each(DECISION_PATH.map((s) => [`${s.from} -> ${s.to} (${s.fn})`, s] as const))(
    'the code still makes the call %s',
    (_name, step) => {
      expect(stepFault(step)).toBeUndefined();
    },
  );

  it('a step the code does not make is a fault', () => {
    expect(
      stepFault({ from: 'lib/ledger/deliveries.ts', to: 'lib/worker/handler.ts', fn: 'createWorkerHandler' }),
    ).toMatch(/does not import/);
    expect(stepFault({ from: 'functions/intake.ts', to: 'lib/http/lambda-http.ts', fn: 'noSuchFunction' })).toMatch(
      /defines no noSuchFunction/,
    );
  });

  it('crosses fewer modules than before issue 45 (50 crossings: the workflow_run payload was read by two modules)', () => {
    expect(pathFigures(DECISION_PATH).crossings).toBeLessThan(50);
    // Before issue 45 the path touched 25 modules.
    expect(pathFigures(DECISION_PATH).modules).toBeLessThan(25);
  });

  it('counts a call and its return as two crossings', () => {
    expect(pathFigures(DECISION_PATH).crossings).toBe(2 * DECISION_PATH.length);
  });
});
