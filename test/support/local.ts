import { type Runtime, type RuntimeOptions, startRuntime } from '../../lib/local/runtime.js';
import type { RunMessage } from '../../lib/model.js';
import type { RunOutcome } from '../../lib/worker/result.js';
import { GitHubSimulator } from '../sim/index.js';
import { appEnv, INSTALLATION_ID, UNPACED_ENV } from './harness.js';
import { MemoryLog } from './memory-log.js';

export interface LocalSetup {
  readonly sim: GitHubSimulator;
  readonly rt: Runtime;
  readonly log: MemoryLog;
  /** Every decision the runtime's worker made, in order. */
  readonly outcomes: { message: RunMessage; outcome: RunOutcome }[];
  readonly secret: string;
  close(): Promise<void>;
}

/**
 * The local runtime as `npm start` runs it, against a fresh GitHub simulator with one
 * installation, App credentials with a real key, and log redirects allowed to the simulator.
 */
export async function startLocal(
  over: { env?: Record<string, string>; secret?: string } & Partial<Omit<RuntimeOptions, 'env' | 'log'>> = {},
): Promise<LocalSetup> {
  const { env, secret = 'local-webhook-secret', ...opts } = over;
  const sim = await GitHubSimulator.start();
  sim.addInstallation({ id: INSTALLATION_ID, account: 'acme' });
  const log = new MemoryLog();
  const outcomes: LocalSetup['outcomes'] = [];
  const rt = await startRuntime({
    env: {
      ...appEnv(sim.url),
      WEBHOOK_SECRET: secret,
      ...UNPACED_ENV,
      ...env,
    },
    log,
    port: 0,
    retryBaseMs: 1,
    // A loaded machine must not time a request out: timeouts are tested on a virtual clock.
    requestTimeoutMs: 10 * 60_000,
    onOutcome: (message, outcome) => outcomes.push({ message, outcome }),
    ...opts,
  });
  return {
    sim,
    rt,
    log,
    outcomes,
    secret,
    close: async () => {
      await rt.close();
      await sim.close();
    },
  };
}
