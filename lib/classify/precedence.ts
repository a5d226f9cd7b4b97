import type { EvidenceFamily } from '../model.js';

/** One row of the precedence table: a family that can decide a verdict, and why it stands where it does. */
export interface PrecedenceRow {
  readonly family: Exclude<EvidenceFamily, 'none'>;
  readonly verdict: 'vetoed' | 'genuine' | 'infra';
  readonly why: string;
}

/**
 * The order in which evidence families decide a job's verdict, first wins. The classifier reads
 * a job's annotations and signals, then (when they settle nothing) its log, and at each step picks
 * the first family of this table it found; docs/design.md quotes it (test/docs/precedence-docs.test.ts).
 */
export const PRECEDENCE: readonly PrecedenceRow[] = [
  {
    family: 'veto',
    verdict: 'vetoed',
    why: 'a person, concurrency or a timeout ended the job: what someone decided is never re-run',
  },
  {
    family: 'exit-code',
    verdict: 'genuine',
    why: 'a step exited non-zero: a real failure, even beside an exact signal',
  },
  {
    family: 'failure-text',
    verdict: 'genuine',
    why: 'another failure text on a failed job beside a loss: a test failed, then the runner died in an `always()` step',
  },
  {
    family: 'signal',
    verdict: 'infra',
    why: 'an exact record that the machine went away from outside the workload: the strongest loss',
  },
  {
    family: 'runner-loss',
    verdict: 'infra',
    why: "GitHub's runner-loss text (built-in or configured pattern): text only",
  },
  {
    family: 'platform',
    verdict: 'infra',
    why: "GitHub's own platform failure: text only, with its own switch (`platform_errors`)",
  },
  {
    family: 'state-change',
    verdict: 'infra',
    why: 'an EC2 state change nothing outside the workload warned of: the job could have caused it',
  },
];

/**
 * Asks each family of PRECEDENCE in order whether it was found, and answers the first that was,
 * with its row; undefined when none was. Lazy, so a family below the winner is never looked for.
 */
export function firstByPrecedence<T>(
  found: Partial<Record<PrecedenceRow['family'], () => T | undefined>>,
): { readonly row: PrecedenceRow; readonly hit: T } | undefined {
  for (const row of PRECEDENCE) {
    const hit = found[row.family]?.();
    if (hit !== undefined) return { row, hit };
  }
  return undefined;
}
