/**
 * The compiled local runtime in a process of its own, as `npm start` runs it
 * (`node dist/lib/local/main.js`, after the build the suite's global setup makes): real HTTP,
 * the wall clock, the embedded queue with its real visibility timeout. A fresh working
 * directory, so no `.env` of the checkout is read and its admin token stays there.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GitHubSimulator } from '../sim/index.js';
import { appEnv } from './harness.js';
import { post, signedDelivery, workflowRunPayload } from './webhooks.js';

const MAIN = fileURLToPath(new URL('../../dist/lib/local/main.js', import.meta.url));
export const COMPILED_SECRET = 'compiled-runtime-secret';

export interface CompiledRuntime {
  readonly url: string;
  readonly pid: number;
  /** The last lines the runtime wrote, for a failure's message. */
  tail(): string;
  /** Signs and posts the run's `workflow_run.completed` under `guid`; answers the HTTP status. */
  deliver(sim: GitHubSimulator, runId: number, installationId: number, guid: string): Promise<number>;
  stop(): Promise<void>;
}

/** Starts the runtime against `sim` with `env` over the App's settings; resolves once it listens. */
export async function startCompiledRuntime(
  sim: GitHubSimulator,
  env: Record<string, string>,
): Promise<CompiledRuntime> {
  const cwd = mkdtempSync(join(tmpdir(), 'reprise-compiled-'));
  const child = spawn(process.execPath, [MAIN, '--port', '0'], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...appEnv(sim.url),
      WEBHOOK_SECRET: COMPILED_SECRET,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer): void => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (lines.length > 200) lines.splice(0, lines.length - 200);
  };
  child.stderr.on('data', keep);
  const url = await listening(child, keep);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(cwd, { recursive: true, force: true });
  };
  return {
    url,
    pid: child.pid!,
    tail: () => lines.slice(-40).join('\n'),
    deliver: async (s, runId, installationId, guid) => {
      const d = await signedDelivery(
        COMPILED_SECRET,
        'workflow_run',
        workflowRunPayload(s, runId, installationId),
        guid,
      );
      return (await post(`${url}/webhook`, d)).status;
    },
    stop,
  };
}

/** The URL from the runtime's "listening" log line; every stdout line is kept as it comes. */
function listening(child: ChildProcess, keep: (chunk: Buffer) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    let pending = '';
    const timer = setTimeout(() => reject(new Error('the compiled runtime did not listen within 60 s')), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the compiled runtime exited with ${code} before it listened`));
    });
    let found = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      keep(chunk);
      if (found) return;
      pending += chunk.toString('utf8');
      const at = pending.indexOf('reprise local runtime listening');
      const end = at < 0 ? -1 : pending.indexOf('\n', at);
      if (end < 0) {
        if (at < 0) pending = pending.slice(-4096);
        return;
      }
      found = true;
      clearTimeout(timer);
      const line = pending.slice(pending.lastIndexOf('\n', at) + 1, end);
      const url = (JSON.parse(line) as { url?: string }).url;
      if (url) resolve(url);
      else reject(new Error(`no url in the listening line: ${line}`));
    });
  });
}
