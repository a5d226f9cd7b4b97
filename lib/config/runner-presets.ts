/**
 * What each runner provisioner's naming means for exact signals: the EC2 tags that carry a
 * runner's name, and where a runner's name carries its instance id. Each entry was read off the
 * provisioner's own code; docs/signals.md cites the file and version.
 */
export const RUNNER_PRESETS = {
  /** Runners are named `<runner_name_prefix><instance-id>` (start-runner.sh, github-runner.ts). */
  'terraform-aws-github-runner': { tagKeys: [], namePatterns: ['(i-[0-9a-f]{8,17})$'] },
  /** The EC2 provider tags its instance `Name` = the runner name, the Step Functions execution name. */
  'cdk-github-runners': { tagKeys: ['Name'], namePatterns: [] },
  /** Runners are named `runs-on--<instance-id>--<suffix>`. */
  'runs-on': { tagKeys: [], namePatterns: ['^runs-on--(i-[0-9a-f]{8,17})--'] },
  /**
   * Runners are pods named `<scale-set>-runner-<suffix>`, which EC2 never sees: on EKS the EC2
   * signal lists the runner pods of the interrupted node (`eksClusters`), elsewhere an agent posts
   * them (`POST /signals`); either way they join by name as they are.
   */
  'actions-runner-controller': { tagKeys: [], namePatterns: [] },
} as const satisfies Record<string, RunnerPresetSettings>;

/** What a preset fills in: the tag keys and runner-name patterns that join its runners' signals to their jobs. */
export interface RunnerPresetSettings {
  /** EC2 tag keys whose values are runner names. */
  readonly tagKeys: readonly string[];
  /** Regular expressions over a job's runner name; the first group is one more key its signals are under. */
  readonly namePatterns: readonly string[];
}

/** A provisioner reprise knows the naming of. */
export type RunnerPreset = keyof typeof RUNNER_PRESETS;

/** Every preset's name, as the `runnerPreset` prop and `RUNNER_PRESET` take it. */
export const RUNNER_PRESET_NAMES = Object.keys(RUNNER_PRESETS) as RunnerPreset[];
