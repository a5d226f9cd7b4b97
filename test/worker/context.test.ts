import { describe, expectTypeOf, it } from 'vitest';
import type { WorkerDeps } from '../../lib/worker/worker-deps.js';

/** The keys of `T` a caller may leave out. */
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

describe('the worker’s resolved context', () => {
  it('nothing in it is optional: every store, client, setting and the clock are resolved once, where the process is assembled', () => {
    expectTypeOf<OptionalKeys<WorkerDeps>>().toEqualTypeOf<never>();
  });
});
