/**
 * Entry of a child process: the local runtime as `npm start` runs it (Powertools logs to
 * stdout), plus what the burst section reads over IPC: decisions, queue state and the
 * process's memory sampled every 20 ms. Started by spawn-runtime.ts, never on its own.
 */
import { startRuntime } from '../../lib/local/runtime.js';
import { createLog } from '../../lib/obs/powertools.js';

export interface ChildStats {
  readonly decisions: Readonly<Record<string, number>>;
  /** Date.now() of the last decision. */
  readonly lastDecisionAt: number;
  readonly queue: {
    visible: number;
    inFlight: number;
    deadLetters: number;
    duplicatesDropped: number;
  };
  readonly rss: number;
  readonly peakRss: number;
  readonly peakHeapUsed: number;
}

export type ChildRequest = { readonly type: 'stats' } | { readonly type: 'resetPeak' } | { readonly type: 'close' };
export type ChildMessage =
  | { readonly type: 'ready'; readonly url: string }
  | { readonly type: 'stats'; readonly stats: ChildStats }
  | { readonly type: 'closed' };

const send = (m: ChildMessage): void => void process.send?.(m);

async function main(): Promise<void> {
  if (!process.send) throw new Error('child-runtime.ts runs as a child process of the benchmark');
  const decisions: Record<string, number> = {};
  let lastDecisionAt = 0;
  const rt = await startRuntime({
    env: process.env,
    log: createLog('reprise-local', 'INFO'),
    port: 0,
    workerConcurrency: Number(process.env.BENCH_WORKER_CONCURRENCY ?? 2),
    onOutcome: (_m, o) => {
      decisions[o.decision] = (decisions[o.decision] ?? 0) + 1;
      lastDecisionAt = Date.now();
    },
  });
  let peakRss = 0;
  let peakHeapUsed = 0;
  const sample = (): void => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeapUsed = Math.max(peakHeapUsed, m.heapUsed);
  };
  const sampler = setInterval(sample, 20);
  process.on('message', (req: ChildRequest) => {
    if (req.type === 'resetPeak') {
      peakRss = 0;
      peakHeapUsed = 0;
      sample();
    } else if (req.type === 'stats') {
      sample();
      send({
        type: 'stats',
        stats: {
          decisions: { ...decisions },
          lastDecisionAt,
          queue: rt.queue.stats(),
          rss: process.memoryUsage().rss,
          peakRss,
          peakHeapUsed,
        },
      });
    } else if (req.type === 'close') {
      clearInterval(sampler);
      void rt.close().then(() => {
        send({ type: 'closed' });
        process.disconnect();
      });
    }
  });
  send({ type: 'ready', url: rt.url });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
