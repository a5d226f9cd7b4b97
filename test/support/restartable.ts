/**
 * `npm start --data-dir D` killed and started again on the same directory, as a supervisor would.
 * The crash-and-restart and dead-letter suites share it: each start is a new process group on the
 * same data, the last one is killed and the directory removed when the suite ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appEnv, UNPACED_ENV } from './harness.js';
import { type NpmStart, npmStart } from './npm-start.js';

const LISTENING = 'reprise local runtime listening';
const RESTART_SWEEP = 'restart: queue and claims of earlier processes settled';

export interface Started {
  readonly rt: NpmStart;
  /** The public URL. */
  readonly url: string;
  /** The loopback URL of the operator routes. */
  readonly admin: string;
  /** When it said it listens (Date.now). */
  readonly listeningAt: number;
}

export interface Restartable {
  readonly dir: string;
  /** Every process started, in order. */
  readonly started: readonly NpmStart[];
  /** Starts `npm start --port 0 --data-dir <dir>` and resolves once it listens. */
  start(env: Record<string, string>): Promise<Started>;
  /** SIGKILLs the process started last, if it still runs, and removes the data directory. */
  close(): Promise<void>;
}

export function restartable(prefix: string): Restartable {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const started: NpmStart[] = [];
  return {
    dir,
    started,
    start: async (env) => {
      const rt = npmStart(['--port', '0', '--data-dir', dir], env);
      started.push(rt);
      const url = await rt.listening;
      const listeningAt = Date.now();
      const admin = rt.lines.find((l) => l.message === LISTENING)!.admin as string;
      return { rt, url, admin, listeningAt };
    },
    close: async () => {
      await started.at(-1)?.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A runtime killed on purpose: no retry budget or breaker to hold a re-run back, and no
 * reconciler, so what a death leaves behind is recovered by the restart alone.
 */
export function killedRuntimeEnv(simUrl: string, secret: string): Record<string, string> {
  return {
    ...appEnv(simUrl),
    WEBHOOK_SECRET: secret,
    ...UNPACED_ENV,
    RETRY_BUDGET_PER_HOUR: '0',
    BREAKER_MIN_OUTCOMES: '0',
    RECONCILE_INTERVAL_SECONDS: '0',
  };
}

/** The line a start logs once it has settled the queue and claims the earlier processes left. */
export const restartSweep = (rt: NpmStart): Record<string, unknown> | undefined =>
  rt.lines.find((l) => l.message === RESTART_SWEEP);

/** Polls `done` every `everyMs` until it holds; throws naming `what` after `timeoutMs`. */
export async function until(what: string, done: () => boolean, timeoutMs: number, everyMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Asks /healthz until nothing is visible or in flight, at most 200 times 50 ms apart. */
export async function drained(url: string): Promise<void> {
  const empty = async () => {
    const health = (await (await fetch(`${url}/healthz`)).json()) as { queue: { visible: number; inFlight: number } };
    return health.queue.visible + health.queue.inFlight === 0;
  };
  for (let i = 0; i < 200 && !(await empty()); i++) await new Promise((r) => setTimeout(r, 50));
}
