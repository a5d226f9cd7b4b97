/** Starts child-runtime.ts in its own Node process, so its memory is the runtime's alone. */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, ChildStats } from './child-runtime.js';

export interface RuntimeProcess {
  readonly url: string;
  readonly pid: number;
  /** Bytes the runtime wrote to stdout (its structured logs). */
  readonly logBytes: () => number;
  stats(): Promise<ChildStats>;
  resetPeak(): void;
  close(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('./child-runtime.ts', import.meta.url));

function next<T extends ChildMessage['type']>(
  child: ChildProcess,
  type: T,
  timeoutMs: number,
): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`runtime process: no "${type}" within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (m: ChildMessage) => m.type === type && done(undefined, m as Extract<ChildMessage, { type: T }>);
    const onExit = (code: number | null) => done(new Error(`runtime process exited with ${code}`));
    const done = (err?: Error, m?: Extract<ChildMessage, { type: T }>) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(m!);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export async function spawnRuntime(env: Record<string, string>, workerConcurrency: number): Promise<RuntimeProcess> {
  const child = fork(ENTRY, [], {
    execArgv: ['--import', 'tsx'],
    env: {
      PATH: process.env.PATH ?? '',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      BENCH_WORKER_CONCURRENCY: String(workerConcurrency),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  let logBytes = 0;
  child.stdout?.on('data', (chunk: Buffer) => (logBytes += chunk.length));
  const ready = await next(child, 'ready', 60_000);
  return {
    url: ready.url,
    pid: child.pid!,
    logBytes: () => logBytes,
    async stats() {
      const answer = next(child, 'stats', 10_000);
      child.send({ type: 'stats' });
      return (await answer).stats;
    },
    resetPeak: () => void child.send({ type: 'resetPeak' }),
    async close() {
      const closed = next(child, 'closed', 30_000).catch(() => undefined);
      child.send({ type: 'close' });
      await closed;
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        const timer = setTimeout(() => child.kill(), 10_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
