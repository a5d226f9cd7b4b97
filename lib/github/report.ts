import type { Decision, JobVerdict } from '../model.js';
import type { RepoApi } from './repo-api.js';

const cell = (s: string | null | undefined): string => (s ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The job table shared by the check run and the CLI. */
export function jobTableMarkdown(verdicts: readonly JobVerdict[]): string {
  const rows = verdicts.map(
    (v) =>
      `| ${cell(v.job.name)} | ${cell(v.job.conclusion)} | ${cell(v.job.runnerName)} | ${v.verdict} | ${v.source}: ${cell(v.evidence)} |`,
  );
  return ['| job | conclusion | runner | verdict | evidence |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** With `report: check_run`, the decision is shown on the commit as a `reprise` check run. */
export async function reportCheckRun(
  api: RepoApi,
  headSha: string,
  decision: Decision,
  verdicts: readonly JobVerdict[],
): Promise<void> {
  await api.createCheckRun({
    name: 'reprise',
    headSha,
    conclusion: 'neutral',
    title: `reprise: ${decision.decision}`,
    summary: decision.reason,
    text: verdicts.length > 0 ? jobTableMarkdown(verdicts) : 'No job was examined.',
  });
}

/** A job stuck in the queue, as one row of the check run's table. */
export function stuckJobMarkdown(
  job: { name: string; runAttempt: number; labels: readonly string[] },
  reason: string,
): string {
  return [
    '| job | attempt | runs-on | status | evidence |',
    '|---|---|---|---|---|',
    `| ${cell(job.name)} | ${job.runAttempt} | ${cell(job.labels.join(', '))} | stuck_queued | ${cell(reason)} |`,
  ].join('\n');
}
