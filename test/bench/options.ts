import { parseArgs } from 'node:util';

export interface BenchOptions {
  /** Fixed latency the GitHub simulator adds to every request, in ms. */
  readonly latencyMs: number;
  /** Smaller counts, for a smoke test. */
  readonly quick: boolean;
  /** Sections to run (1–8); all when absent. */
  readonly only?: ReadonlySet<number>;
  /** Runs of each timed section (2, 3, 4, 7); its goals are judged on the median run. */
  readonly repeat: number;
}

export const HELP = `npm run bench -- [--latency MS] [--quick] [--only 1,2,...] [--repeat N]

Measures reprise against the GitHub simulator and writes bench/results.json and
docs/performance-requests.svg. Sections: 1 GitHub requests per decision,
2 webhook-to-re-run latency, 3 burst of completed runs, 4 intake in-process,
5 bundle size and load time, 6 cost per 10,000 decisions (needs 1 and 4),
7 spot wave: 1,000 runs of one installation paced under a secondary limit,
8 time to recovery with early_recovery last_job and off, on GitHub's 10-minute
job lease (the quick form shortens it to 20 s).

  --latency MS   latency of every simulated GitHub request (default 100)
  --quick        smaller counts (a smoke run, well under a minute)
  --only LIST    run only these sections, e.g. --only 1,4,6
  --repeat N     runs of each timed section (2, 3, 4, 7), judged on the median
                 run (default 3; 1 with --quick, and fewer than 3 are not judged)`;

export function parseOptions(argv: readonly string[]): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      latency: { type: 'string' },
      quick: { type: 'boolean' },
      only: { type: 'string' },
      repeat: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const latencyMs = Number(values.latency ?? 100);
  if (!Number.isInteger(latencyMs) || latencyMs < 0 || latencyMs > 10_000) {
    throw new Error(`--latency: expected whole milliseconds between 0 and 10000, got "${values.latency}"`);
  }
  let only: Set<number> | undefined;
  if (values.only !== undefined) {
    only = new Set(values.only.split(',').map((s) => Number(s.trim())));
    for (const n of only) {
      if (!Number.isInteger(n) || n < 1 || n > 8) throw new Error(`--only: sections are 1 to 8, got "${values.only}"`);
    }
  }
  const quick = values.quick ?? false;
  const repeat = Number(values.repeat ?? (quick ? 1 : 3));
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 9) {
    throw new Error(`--repeat: expected a whole number of runs from 1 to 9, got "${values.repeat}"`);
  }
  return { latencyMs, quick, repeat, ...(only && { only }) };
}
