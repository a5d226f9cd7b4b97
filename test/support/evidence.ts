/**
 * The texts GitHub writes when a job ends: annotation messages and job-log lines, each defined
 * once for every suite. They are written out as GitHub writes them and never built from
 * lib/classify/patterns.ts, so the patterns are tested against GitHub's words, not against
 * themselves.
 */

const LOST_TAIL =
  'lost communication with the server. Verify the machine is running and has a healthy network connection. ' +
  'Anything in your workflow that terminates the runner process, starves it for CPU/Memory, or blocks its ' +
  'network access can cause this error.';

/** A runner name as terraform-aws-github-runner gives it: a prefix and the EC2 instance id. */
export const RUNNER_NAME = 'runs-on--i-062dfa0123456789a';

/** A person cancelling the run: GitHub names their login. */
const canceledBy = (login = 'octocat') => `The run was canceled by @${login}.`;

export const TEXT = {
  /** Runner loss: a self-hosted runner with a name, with none, with an empty one; a hosted runner. */
  selfHostedNamed: (name: string = RUNNER_NAME) => `The self-hosted runner: ${name} ${LOST_TAIL}`,
  selfHostedUnnamed: `The self-hosted runner ${LOST_TAIL}`,
  selfHostedEmptyName: `The self-hosted runner: ${LOST_TAIL}`,
  hosted: `The hosted runner ${LOST_TAIL}`,
  hostedNamed: (name: string) => `The hosted runner: ${name} ${LOST_TAIL}`,
  shutdown:
    'The runner has received a shutdown signal. This can happen when the runner service is stopped, or a manually started runner is canceled.',
  /** Proves nothing alone: it often follows the shutdown signal. */
  echo: 'The operation was canceled.',
  /** Never infrastructure: a real failure, a timeout, a person, a concurrency group, a fail-fast sibling. */
  exitCode: (code = 1) => `Process completed with exit code ${code}.`,
  timeoutJob: 'The job has exceeded the maximum execution time of 1h0m0s',
  timeoutRunner: 'The job running on runner X has exceeded the maximum execution time of 360 minutes.',
  canceledBy,
  person: canceledBy(),
  concurrency: "Canceling since a higher priority waiting request for 'ci-refs/heads/main' exists",
  failFast: 'The strategy configuration was canceled because "test._linux_3" failed',
} as const;

/** A failure-level annotation, as the check run's annotations list gives it. */
export const failureAnnotation = (message: string) => ({ level: 'failure' as const, message });

/** The annotation GitHub leaves on a job whose self-hosted runner was lost. */
export const lostAnnotation = (runner?: string) => failureAnnotation(TEXT.selfHostedNamed(runner));

/** A job that failed because its self-hosted runner was lost, as the jobs list and its annotation report it. */
export const lostJob = (name: string, runner: string) => ({
  name,
  conclusion: 'failure' as const,
  runnerName: runner,
  annotations: [lostAnnotation(runner)],
});

/** The annotation GitHub leaves on a job whose step exited non-zero. */
export const exitAnnotation = (code = 1) => failureAnnotation(TEXT.exitCode(code));

// ---------------------------------------------------------------------------------------------
// Job-log lines
// ---------------------------------------------------------------------------------------------

const LOG_TIME = '2026-10-02T16:15:05.7828522Z';

/** One error line of a job log: timestamp, `##[error]`, the text. */
export const errorLine = (text: string, at: string = LOG_TIME) => `${at} ##[error]${text}`;

/** The runner's last line of every job log. */
export const CLEANUP_LINE = 'Cleaning up orphan processes';

/** The tail a job leaves when its runner is shut down under it, as a job log. */
export const SHUTDOWN_LOG = [
  '2026-10-02T16:15:01.0000000Z ##[group]Run make test',
  errorLine(TEXT.shutdown),
  errorLine(TEXT.echo, '2026-10-02T16:15:05.9000000Z'),
  `2026-10-02T16:15:06.0000000Z ${CLEANUP_LINE}`,
  '',
].join('\n');

/** A job log whose step exited non-zero. */
export const exitLog = (code = 1) => `${errorLine(TEXT.exitCode(code), '2026-10-02T16:15:05.0000000Z')}\n`;
