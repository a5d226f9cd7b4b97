/** The runs the benchmark decides: a matrix of jobs, some of them lost to a reclaimed runner. */
import type { SimJobSpec } from '../sim/index.js';
import { lostJob } from '../support/evidence.js';

export const MATRIX_SIZES = [1, 10, 60, 200] as const;

/** How many jobs of a matrix are lost: one, a quarter (at least one), all. */
export const LOSS_LEVELS = [
  { label: '1 job', lost: (_size: number) => 1 },
  { label: '25 %', lost: (size: number) => Math.max(1, Math.ceil(size / 4)) },
  { label: '100 %', lost: (size: number) => size },
] as const;

export interface Scenario {
  readonly jobs: number;
  readonly lost: number;
  /** Loss levels that give this many lost jobs (a 1-job matrix is all three at once). */
  readonly levels: readonly string[];
}

export function scenarios(): Scenario[] {
  const out: Scenario[] = [];
  for (const jobs of MATRIX_SIZES) {
    for (const level of LOSS_LEVELS) {
      const lost = level.lost(jobs);
      const same = out.find((s) => s.jobs === jobs && s.lost === lost);
      if (same) (same.levels as string[]).push(level.label);
      else out.push({ jobs, lost, levels: [level.label] });
    }
  }
  return out;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** A runner name as terraform-aws-github-runner gives it: a prefix and the EC2 instance id. */
export const runnerName = (seed: number, i: number): string => `spot-runner-i-0${hex(seed % 0xffff, 4)}${hex(i, 12)}`;

/** `size` matrix shards; the first `lost` ones lost their runner, the others passed. */
export function matrixJobs(size: number, lost: number, seed = 1): SimJobSpec[] {
  return Array.from({ length: size }, (_, i) => {
    const runner = runnerName(seed, i);
    const name = `test (shard ${i + 1}/${size})`;
    return i < lost ? lostJob(name, runner) : { name, conclusion: 'success' as const, runnerName: runner };
  });
}
