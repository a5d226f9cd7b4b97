import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  decisionLine,
  type DecisionSettings,
  type WorkerContext,
  type WorkerGitHub,
  type WorkerObs,
  type WorkerStores,
} from '../../lib/worker/context.js';
import { runMessage } from '../support/fixtures.js';

/** The keys of `T` a caller may leave out. */
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

describe('the worker’s resolved context', () => {
  it('nothing in it is optional: every store, client, setting and the clock are resolved once, where the process is assembled', () => {
    expectTypeOf<OptionalKeys<WorkerContext>>().toEqualTypeOf<never>();
    expectTypeOf<OptionalKeys<WorkerStores>>().toEqualTypeOf<never>();
    expectTypeOf<OptionalKeys<WorkerGitHub>>().toEqualTypeOf<never>();
    expectTypeOf<OptionalKeys<DecisionSettings>>().toEqualTypeOf<never>();
    expectTypeOf<OptionalKeys<WorkerObs>>().toEqualTypeOf<never>();
  });
});

describe('the fields every line of a decision starts with', () => {
  it('name the run, its attempt, the repository as owner/name and the delivery, and nothing else', () => {
    const msg = runMessage({ runId: 9001, runAttempt: 2, deliveryId: 'guid-1' });
    expect(decisionLine(msg)).toEqual({
      run_id: 9001,
      run_attempt: 2,
      repository: `${msg.repository.owner}/${msg.repository.name}`,
      delivery: 'guid-1',
    });
  });
});
