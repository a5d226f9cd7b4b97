/**
 * `npm start` against the GitHub simulator for the trust-boundary suites: deliveries signed as
 * GitHub signs them, signals posted as agents post them, and each run's decision line read off
 * the runtime's own log.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { GitHubSimulator } from '../sim/index.js';
import { appEnv } from '../support/harness.js';
import { type NpmStart, npmStart } from '../support/npm-start.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';
import { tempDir } from '../support/faults.js';

export const WEBHOOK_SECRET = 'trust-webhook-secret-4e1a';

export interface TrustRuntime {
  readonly url: string;
  readonly rt: NpmStart;
  deliver(runId: number, installationId: number, guid?: string): Promise<number>;
  /** The run's decision lines (`decision`, `decision deferred`) so far. */
  decisions(runId: number): Record<string, unknown>[];
  /** Waits for the run's first line with this message (of `attempt`, when given); throws with the log's tail after `timeoutMs`. */
  line(runId: number, message: string, attempt?: number, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

let guidSeq = 0;

export async function startTrustRuntime(sim: GitHubSimulator, env: Record<string, string>): Promise<TrustRuntime> {
  const dir = tempDir('reprise-trust-');
  const rt = npmStart(['--port', '0', '--data-dir', dir.path], {
    ...appEnv(sim.url),
    WEBHOOK_SECRET,
    RECONCILE_INTERVAL_SECONDS: '0',
    ...env,
  });
  let url: string;
  try {
    url = await rt.listening;
  } catch (err) {
    dir.remove();
    throw err;
  }
  const ofRun = (runId: number) => rt.lines.filter((l) => l.run_id === runId);
  return {
    url,
    rt,
    deliver: async (runId, installationId, guid = `trust-${process.pid}-${++guidSeq}`) => {
      const d = await signedDelivery(
        WEBHOOK_SECRET,
        'workflow_run',
        workflowRunPayload(sim, runId, installationId),
        guid,
      );
      return (await post(`${url}/webhook`, d)).status;
    },
    decisions: (runId) => ofRun(runId).filter((l) => String(l.message).startsWith('decision')),
    line: async (runId, message, attempt, timeoutMs = 30_000) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const got = ofRun(runId).find(
          (l) => l.message === message && (attempt === undefined || l.run_attempt === attempt),
        );
        if (got) return got;
        if (Date.now() > until) {
          const tail = rt.lines.slice(-30).map((l) => JSON.stringify(l));
          throw new Error(`run ${runId}: no "${message}" line within ${timeoutMs} ms\n${tail.join('\n')}`);
        }
        await sleep(20);
      }
    },
    stop: async () => {
      await rt.kill('SIGTERM');
      dir.remove();
    },
  };
}

/** Waits until `ok` holds, polling; throws naming `what` after `timeoutMs`. */
export async function until(what: string, ok: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
