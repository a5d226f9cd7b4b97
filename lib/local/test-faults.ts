/**
 * A fault only a test can cause in the compiled local runtime: a message that kills its worker every
 * time it is decided, as a message that crashes the process would. Enabled only when NODE_ENV is
 * "test" and REPRISE_TEST_KILL_WORKER_ON_RUN names a run id; otherwise the ledger is returned as
 * it is. The process is SIGKILLed the moment the worker has claimed that run's attempt, so its
 * restart finds the claim of a dead process and the message received once more.
 */
import type { Ledger } from '../ledger/ledger.js';

/** The variable naming the run whose worker is killed once it has claimed the attempt. */
export const KILL_WORKER_ON_RUN = 'REPRISE_TEST_KILL_WORKER_ON_RUN';

/** The ledger with the test fault wired in when NODE_ENV is "test" and the variable is set; otherwise the ledger as it is. */
export function withTestFaults(ledger: Ledger, env: Readonly<Record<string, string | undefined>>): Ledger {
  if (env.NODE_ENV !== 'test' || !env[KILL_WORKER_ON_RUN]) return ledger;
  const runId = Number(env[KILL_WORKER_ON_RUN]);
  const attempts: Ledger['attempts'] = Object.create(ledger.attempts) as Ledger['attempts'];
  attempts.claim = async (msg, owner, leaseMs) => {
    const result = await ledger.attempts.claim(msg, owner, leaseMs);
    if (result.claimed && msg.runId === runId) process.kill(process.pid, 'SIGKILL');
    return result;
  };
  return { ...ledger, attempts };
}
