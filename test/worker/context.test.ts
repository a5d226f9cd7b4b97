import { describe, expectTypeOf, it } from 'vitest';
import type {
  DecisionSettings,
  WorkerContext,
  WorkerGitHub,
  WorkerObs,
  WorkerStores,
} from '../../lib/worker/context.js';

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
