import type { Decision, JobVerdict } from '../model.js';
import { clip, TEXT_CAPS } from '../util/clip.js';
import { inlineMarkdown } from '../util/inert-text.js';
import type { RepoApi } from './repo-api.js';

/** The longest `output.summary` or `output.text` GitHub takes; a longer one is refused (422). */
export const CHECK_RUN_FIELD_MAX = 65_535;

/** A table cell of text someone else wrote: capped, then literal (see inlineMarkdown). */
const cell = (s: string | null | undefined, max: number = TEXT_CAPS.error): string =>
  inlineMarkdown(clip(s ?? '', max));

/** A field cut to GitHub's limit, saying so. */
const fit = (s: string, max = CHECK_RUN_FIELD_MAX): string => clip(s, max);

const HEADER = ['| job | conclusion | runner | verdict | evidence |', '|---|---|---|---|---|'];

/**
 * The job table shared by the check run and the CLI, within `max` characters: the rows that
 * fit, then how many did not.
 */
export function jobTableMarkdown(verdicts: readonly JobVerdict[], max = CHECK_RUN_FIELD_MAX): string {
  const lines = [...HEADER];
  let length = lines.join('\n').length;
  const reserve = 100;
  let shown = 0;
  for (const v of verdicts) {
    const row = `| ${cell(v.job.name, TEXT_CAPS.name)} | ${cell(v.job.conclusion)} | ${cell(v.job.runnerName, TEXT_CAPS.name)} | ${v.verdict} | ${v.source}: ${cell(v.evidence)} |`;
    if (length + 1 + row.length > max - reserve) break;
    lines.push(row);
    length += 1 + row.length;
    shown++;
  }
  const left = verdicts.length - shown;
  if (left > 0) lines.push('', `${left} more job(s) not shown here; \`reprise decisions\` lists every decision.`);
  return fit(lines.join('\n'), max);
}

/** A check run's summary: reprise's reason, which quotes names and texts others wrote, made literal. */
export const summaryMarkdown = (reason: string): string => fit(inlineMarkdown(reason));

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
    summary: summaryMarkdown(decision.reason),
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
    `| ${cell(job.name, TEXT_CAPS.name)} | ${job.runAttempt} | ${cell(job.labels.join(', '))} | stuck_queued | ${cell(reason)} |`,
  ].join('\n');
}
