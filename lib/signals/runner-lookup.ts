/**
 * The worker's question to the signal store: which signals of this runner may count for this job.
 * The runner's keys come from its name (`RunnerKeys`) and whom a signal counts for from the scope
 * it was posted under (`scopeAllows`): both decided here, so the store takes keys and answers facts.
 */
import { type JobOwner, scopeAllows } from '../config/signal-scope.js';
import type { RunnerSignal, SignalWindow } from '../model.js';
import type { RecordedSignal } from '../records.js';
import { RunnerKeys } from './runner-keys.js';

/** The part of the signal store the lookup reads: the signals under some runner keys around a time. */
export interface SignalsAround {
  around(runnerKeys: readonly string[], completedAt: string | null, window: SignalWindow): Promise<RecordedSignal[]>;
}

/** Signals for a job's runner, as the worker and `reprise explain` ask for them. */
export interface RunnerSignalLookup {
  /**
   * Signals for a runner (under every key its name gives) around a job's completion that may
   * count for a job of `owner`: an agent's signal whose scope leaves the owner out is not one.
   */
  forRunner(
    runnerName: string | null,
    completedAt: string | null,
    window: SignalWindow,
    owner?: JobOwner,
  ): Promise<RunnerSignal[]>;
}

/** A signal as the decision sees it: the scope it was posted under has done its work. */
const withoutScope = ({ scope: _scope, ...signal }: RecordedSignal): RunnerSignal => signal;

/** The lookup over a store, with the runner keys of the deployment's name patterns. */
export function runnerSignalLookup(
  store: SignalsAround,
  runnerKeys: RunnerKeys = new RunnerKeys(),
): RunnerSignalLookup {
  return {
    async forRunner(runnerName, completedAt, window, owner) {
      const found = await store.around(runnerKeys.for(runnerName), completedAt, window);
      const counted = owner === undefined ? found : found.filter((s) => scopeAllows(s.scope, owner));
      return counted.map(withoutScope);
    },
  };
}
