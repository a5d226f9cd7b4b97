/**
 * GitHub's own name for a job's infrastructure failure, read before any text once GitHub shows it.
 *
 * Since runner 2.329 the runner reports, when a job completes, an `infrastructureFailureCategory`
 * taken from the job's first infrastructure error (actions/runner `CompleteJobRequest`,
 * `ExecutionContext.InfrastructureError`): `resolve_action`, `error_download_action`,
 * `invalid_action_download` for the actions a job could not set up. That value reaches neither the
 * REST API (a job, its check run's annotations) nor the `workflow_job` webhook yet, so no field is
 * read: `EXPOSED_FIELDS` is empty and the reader answers "no category" for every job, leaving the
 * text to decide (lib/classify/action-setup.ts). The day GitHub exposes it, its field name goes
 * into `EXPOSED_FIELDS` and the category decides the family before any pattern runs.
 */

/** The runner's published categories and the platform evidence each one is. */
export const RUNNER_INFRA_CATEGORIES: Readonly<Record<string, string>> = {
  resolve_action: 'action-resolve',
  error_download_action: 'action-download',
  invalid_action_download: 'action-archive',
};

/** The fields of a job, an annotation or a webhook payload where GitHub exposes the category: none yet. */
export const EXPOSED_FIELDS: readonly string[] = [];

/** GitHub's own category for an infrastructure failure, and the platform evidence it stands for. */
export interface InfraCategory {
  /** The runner's name for it, as GitHub wrote it. */
  readonly category: string;
  /** The platform evidence it stands for. */
  readonly platform: string;
}

/**
 * The first known category any of `sources` carries in an exposed field. Unknown categories (a
 * debugger tunnel that failed is the person's session, not the platform) and non-string values
 * read as none: only the runner's published names count.
 */
export function readInfraCategory(
  sources: readonly object[],
  exposed: readonly string[] = EXPOSED_FIELDS,
): InfraCategory | undefined {
  for (const source of sources) {
    for (const field of exposed) {
      const value = (source as Record<string, unknown>)[field];
      if (typeof value !== 'string') continue;
      const platform = Object.hasOwn(RUNNER_INFRA_CATEGORIES, value) ? RUNNER_INFRA_CATEGORIES[value] : undefined;
      if (platform) return { category: value, platform };
    }
  }
  return undefined;
}
