import { ACTION_SETUP_PATTERNS } from './action-setup.js';
import { linearPattern, type TextPattern } from './linear-pattern.js';
import type { ScanMeter } from './scan-budget.js';

export type { TextPattern };

/**
 * Texts GitHub leaves behind when a runner disappears, and texts that must never count as
 * infrastructure. Anchored on the stable wording; runner names and timestamps vary. All run on
 * RE2 (linear time): the texts they read are written by the workflows that failed.
 */
export interface NamedPattern {
  readonly name: string;
  readonly re: TextPattern;
}

/** GitHub's texts for a runner that went away: the `runner-loss` family's built-in patterns, by name. */
export const RUNNER_LOSS_PATTERNS: readonly NamedPattern[] = [
  // Named, unnamed and empty-named self-hosted runners share the tail of the sentence.
  {
    name: 'self-hosted-lost',
    re: linearPattern('the self-hosted runner(?::[^\\n]*?)? lost communication with the server'),
  },
  { name: 'hosted-lost', re: linearPattern('the hosted runner(?::[^\\n]*?)? lost communication with the server') },
  { name: 'shutdown-signal', re: linearPattern('the runner has received a shutdown signal') },
];

/**
 * GitHub's own platform failures: a hosted or larger runner that could not be provisioned (or whose
 * provision message could not be sent) or was deprovisioned under the job, a job no runner
 * acquired after GitHub's retries, an internal error while running it (some carry nothing but a
 * correlation id), a disconnect of the hosted runner.
 * Text only, like the runner-loss texts; `platform_errors: leave` turns them off, with the action
 * setup family (action-setup.ts: actions GitHub could not resolve or serve). Each is GitHub's
 * whole sentence, anchored on its stable words, so a step's output that merely mentions an internal
 * error or a disconnect never matches.
 */
export const PLATFORM_PATTERNS: readonly NamedPattern[] = [
  {
    name: 'not-acquired',
    re: linearPattern('the job was not acquired by runner of type \\S+ even after multiple attempts'),
  },
  {
    name: 'internal-error',
    re: linearPattern('github actions has encountered an internal error when running your job'),
  },
  // Only the whole annotation: a correlation id and nothing else.
  {
    name: 'internal-server-error',
    re: linearPattern(
      '^\\s*internal server error\\. correlation id: [0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\\.?\\s*$',
    ),
  },
  {
    name: 'hosted-error',
    re: linearPattern('the hosted runner encountered an error while running your job\\. \\(error type: \\w+\\)'),
  },
  { name: 'provisioning', re: linearPattern('an error occurred while provisioning resources \\(error type: \\w+\\)') },
  {
    name: 'provision-message',
    re: linearPattern('there was a failure in sending the provision message'),
  },
  {
    name: 'deprovisioned',
    re: linearPattern('received request to deprovision: the request was cancelled by the remote provider'),
  },
];

/** Alone it proves nothing: it often follows the shutdown signal, so it sends the job to its log. */
export const CANCELLATION_ECHO: TextPattern = linearPattern('^\\s*the operation was canceled\\.?\\s*$');

/** Fail-fast siblings: cancelled because another job failed; neither blame nor evidence. */
export const FAIL_FAST: TextPattern = linearPattern('the strategy configuration was canceled because');

/** A step's process exited non-zero: a real failure, whatever else the text says. */
export const EXIT_CODE: TextPattern = linearPattern('process completed with exit code \\d+');

/** Who decided a job's end: a person, concurrency, or a timeout. */
export type VetoKind = 'person' | 'concurrency' | 'timeout';

/** Texts that end a job by someone's decision: the `veto` family, never re-run. */
export const VETO_PATTERNS: readonly { readonly kind: VetoKind; readonly re: TextPattern }[] = [
  { kind: 'person', re: linearPattern('the run was canceled by @') },
  { kind: 'concurrency', re: linearPattern('canceling since a higher priority waiting request for .* exists') },
  { kind: 'timeout', re: linearPattern('has exceeded the maximum execution time of') },
];

/** Every built-in pattern by name, for tests and documentation that must cover them all. */
export const BUILT_IN_PATTERNS: readonly NamedPattern[] = [
  ...RUNNER_LOSS_PATTERNS,
  ...PLATFORM_PATTERNS.map((p) => ({ name: `platform-${p.name}`, re: p.re })),
  // The action setup family reads a job's texts together (action-setup.ts); its texts, one by one.
  ...ACTION_SETUP_PATTERNS.map((p) => ({ name: `platform-${p.name}`, re: p.re })),
  { name: 'cancellation-echo', re: CANCELLATION_ECHO },
  { name: 'fail-fast', re: FAIL_FAST },
  { name: 'exit-code', re: EXIT_CODE },
  ...VETO_PATTERNS.map((v) => ({ name: `veto-${v.kind}`, re: v.re })),
];

/** Runs one pattern, after the meter (when given) has had its say. */
export const matches = (re: TextPattern, text: string, meter?: ScanMeter): boolean => {
  meter?.check();
  return re.test(text);
};

/** The runner-loss pattern a text matches, by name (`extra:<source>` for a configured one), or undefined. */
export function matchLoss(text: string, extra: readonly TextPattern[], meter?: ScanMeter): string | undefined {
  for (const p of RUNNER_LOSS_PATTERNS) if (matches(p.re, text, meter)) return p.name;
  for (const re of extra) if (matches(re, text, meter)) return `extra:${re.source}`;
  return undefined;
}

/** The platform failure a text reports, by name, or undefined. */
export function matchPlatform(text: string, meter?: ScanMeter): string | undefined {
  return PLATFORM_PATTERNS.find((p) => matches(p.re, text, meter))?.name;
}

/** Who a text says decided the job's end, or undefined. */
export function matchVeto(text: string, meter?: ScanMeter): VetoKind | undefined {
  return VETO_PATTERNS.find((v) => matches(v.re, text, meter))?.kind;
}

export { PatternError } from '../errors.js';
export { compileExtraPatterns, EXTRA_PATTERN_LIMITS } from './extra-patterns.js';
