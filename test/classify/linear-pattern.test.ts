/**
 * Every built-in pattern runs over text written by the workflow that failed. Its time must grow
 * linearly with the line: measured as the ratio of two sizes (4× the text), never as an absolute
 * time, so a slow or loaded machine changes both sides alike. Time is the process's own CPU time,
 * not the wall clock: while a neighbour holds the core, no time is counted against the pattern.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { linearPattern } from '../../lib/classify/linear-pattern.js';
import { BUILT_IN_PATTERNS, type TextPattern } from '../../lib/classify/patterns.js';

const SMALL = 512 * 1024;
/** Linear gives about 4; quadratic 16. The margin absorbs a busy neighbour on a 2-core machine. */
const MAX_RATIO = 8;
const RUNS = 7;

const line = (unit: string, size: number): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Milliseconds of CPU this process spent (user and system). */
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** The fastest of several runs after a warm-up: a busy neighbour only ever adds time. */
function timeOf(test: (text: string) => boolean, text: string): number {
  test(text); // warm-up: compiled code and the engine's caches, as a long-lived worker has them
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = cpuMs();
    test(text);
    runs.push(cpuMs() - t);
  }
  return Math.min(...runs);
}

/**
 * The time for 4× the text over the time for the text. A busy neighbour can spoil one
 * measurement, never five in a row the way a quadratic pattern does: the lowest of up to five
 * ratios is kept.
 */
function growth(test: (text: string) => boolean, unit: string, small = SMALL, attempts = 5): number {
  let best = Infinity;
  for (let attempt = 0; attempt < attempts && best >= MAX_RATIO; attempt++) {
    const a = timeOf(test, line(unit, small));
    const b = timeOf(test, line(unit, small * 4));
    best = Math.min(best, b / Math.max(a, 0.05));
  }
  return best;
}

/** Per pattern: a head of its wording repeated, and a near match (the sentence short of its end) repeated. */
const ADVERSARIES: Record<string, { prefix: string; nearMatch: string }> = {
  'self-hosted-lost': {
    prefix: 'the self-hosted runner:',
    nearMatch: 'The self-hosted runner: r1 lost communication with the serve',
  },
  'hosted-lost': { prefix: 'the hosted runner:', nearMatch: 'The hosted runner: r1 lost communication with the serve' },
  'shutdown-signal': { prefix: 'the runner has ', nearMatch: 'The runner has received a shutdown signa' },
  'platform-not-acquired': {
    prefix: 'the job was not acquired by runner of type ',
    nearMatch: 'The job was not acquired by Runner of type hosted even after multiple attempt',
  },
  'platform-internal-error': {
    prefix: 'github actions has encountered ',
    nearMatch: 'GitHub Actions has encountered an internal error when running your jo',
  },
  'platform-internal-server-error': {
    prefix: 'internal server error. correlation id: ',
    nearMatch: 'Internal server error. Correlation ID: 79b9a27c-24a5-41cb-b9af-7f4a788e3b2',
  },
  'platform-hosted-error': {
    prefix: 'the hosted runner encountered an error ',
    nearMatch: 'The hosted runner encountered an error while running your job. (Error Type: Disconnect',
  },
  'platform-provisioning': {
    prefix: 'an error occurred while provisioning resources (error type: ',
    nearMatch: 'An error occurred while provisioning resources (Error Type: Failure',
  },
  'platform-provision-message': {
    prefix: 'there was a failure in sending the ',
    nearMatch: 'There was a failure in sending the provision messag',
  },
  'platform-deprovisioned': {
    prefix: 'received request to deprovision: ',
    nearMatch: 'Received request to deprovision: The request was cancelled by the remote provid',
  },
  'platform-action-resolve': {
    prefix: 'failed to resolve action ',
    nearMatch: 'Failed to resolve action download info',
  },
  'platform-action-download': {
    prefix: "failed to download archive '",
    nearMatch: "Failed to download archive 'https://api.github.com/repos/a/b/tarball/c' after 3 attempt",
  },
  'platform-action-download-warning': {
    prefix: "failed to download action '",
    nearMatch: "Failed to download action 'x'. Error: Response status code does not indicate success: 50",
  },
  'platform-action-server-error': {
    prefix: 'response status code does not indicate success: 503 (',
    nearMatch: 'Response status code does not indicate success: 503 (Service Unavailable) ',
  },
  'platform-action-resolve-timeout': {
    prefix: 'the http request timed out after ',
    nearMatch: 'The HTTP request timed out after 00:01:40 x',
  },
  'cancellation-echo': { prefix: ' ', nearMatch: 'The operation was canceled. ' },
  'fail-fast': { prefix: 'the strategy ', nearMatch: 'The strategy configuration was canceled becaus' },
  'exit-code': { prefix: 'process completed with exit code ', nearMatch: 'Process completed with exit code x' },
  'veto-person': { prefix: 'the run was canceled by ', nearMatch: 'The run was canceled by x' },
  'veto-concurrency': {
    prefix: 'canceling since a higher priority waiting request for ',
    nearMatch: "Canceling since a higher priority waiting request for 'ci' exist",
  },
  'veto-timeout': { prefix: 'has exceeded the ', nearMatch: 'has exceeded the maximum execution time o' },
};

const rows = BUILT_IN_PATTERNS.flatMap(({ name, re }) => {
  const adv = ADVERSARIES[name];
  if (!adv) return [];
  return [
    [name, 'a repeated prefix, no newline', re, adv.prefix],
    [name, 'many near matches, no newline', re, adv.nearMatch],
    [name, 'one repeated letter', re, 'a'],
  ] as [string, string, TextPattern, string][];
});

describe('built-in patterns take time linear in the line on megabyte adversarial lines', () => {
  it('the table covers every built-in pattern', () => {
    expect(Object.keys(ADVERSARIES).sort()).toEqual(BUILT_IN_PATTERNS.map((p) => p.name).sort());
  });

  const ratios: number[] = [];
  afterAll(() => {
    if (ratios.length === 0) return;
    console.log(
      `[reliability] linear patterns: rows=${ratios.length}, sizes=${SMALL / 1024} KiB and ${(4 * SMALL) / 1024} KiB, ` +
        `worst time ratio=${Math.max(...ratios).toFixed(1)}, median=${median(ratios).toFixed(1)} (linear ≈ 4, quadratic ≈ 16)`,
    );
  });

  it.each(rows)('%s, %s: 4× the line takes < 8× the time', (_name, _kind, re, unit) => {
    expect(re.test(line(unit, SMALL))).toBe(false);
    const ratio = growth((t) => re.test(t), unit);
    ratios.push(ratio);
    expect(ratio).toBeLessThan(MAX_RATIO);
  });

  it('control: the measurement catches a quadratic pattern (the backtracking form of self-hosted-lost)', () => {
    const backtracking = /the self-hosted runner(?::[^\n]*?)? lost communication with the server/i;
    // Small sizes: quadratic time on a megabyte would take minutes. One attempt: the retries
    // that shed a neighbour's noise keep the lowest ratio, which would only flatter this one.
    const ratio = growth((t) => backtracking.test(t), 'the self-hosted runner:', 16 * 1024, 1);
    console.log(
      `[reliability] linear patterns, control: backtracking self-hosted-lost, 16 → 64 KiB, time ratio=${ratio.toFixed(1)}`,
    );
    expect(ratio).toBeGreaterThan(MAX_RATIO);
  });
});

describe('linearPattern', () => {
  it('matches case-insensitively and keeps its source as written', () => {
    const p = linearPattern('Runner (lost|gone)');
    expect(p.source).toBe('Runner (lost|gone)');
    expect(p.test('the RUNNER GONE away')).toBe(true);
    expect(p.test('runner stayed')).toBe(false);
  });

  it('its size grows with the compiled program: a hundredfold repeat is several times a tenfold one', () => {
    expect(linearPattern('\\w{100}').size).toBeGreaterThan(linearPattern('\\w{10}').size * 5);
  });

  it('refuses what RE2 cannot run in linear time: a backreference, a lookahead', () => {
    expect(() => linearPattern('(a)\\1')).toThrow();
    expect(() => linearPattern('a(?=b)')).toThrow();
  });
});
