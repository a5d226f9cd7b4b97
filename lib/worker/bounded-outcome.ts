import type { JobVerdict } from '../model.js';
import { clip, TEXT_CAPS } from '../util/clip.js';

/**
 * A decision's reason and its verdicts' names and evidence cut to TEXT_CAPS before they are
 * logged, reported or stored: job names, runner names and annotation texts are whatever a
 * workflow author wrote.
 */
export function boundedOutcome<T extends { readonly reason: string; readonly verdicts: readonly JobVerdict[] }>(
  o: T,
): T {
  return {
    ...o,
    reason: clip(o.reason, TEXT_CAPS.reason),
    verdicts: o.verdicts.map((v) => ({
      ...v,
      evidence: clip(v.evidence, TEXT_CAPS.error),
      job: {
        ...v.job,
        name: clip(v.job.name, TEXT_CAPS.name),
        runnerName: v.job.runnerName === null ? null : clip(v.job.runnerName, TEXT_CAPS.name),
        ...(typeof v.job.runnerGroupName === 'string' && {
          runnerGroupName: clip(v.job.runnerGroupName, TEXT_CAPS.name),
        }),
      },
    })),
  };
}
