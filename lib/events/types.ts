import type { DecisionKind, EvidenceSource, RerunOutcome } from '../model.js';

/**
 * Events reprise publishes, one per decision, re-run outcome and stuck-queued job: the `detail`
 * of an EventBridge event (source `reprise`), a line of the local runtime's events file.
 * docs/events.schema.json is their schema; `version` changes only when a field changes meaning.
 */
interface EventBase {
  readonly version: 1;
  /** When reprise made the event (ISO 8601). */
  readonly time: string;
  readonly installation_id: number | null;
  /** `owner/name`. */
  readonly repository: string;
  readonly run_id: number;
  readonly run_attempt: number;
}

/** One per decision: what reprise decided for a run attempt, and the jobs it judged lost. */
export interface DecisionEvent extends EventBase {
  readonly kind: 'decision';
  readonly decision: DecisionKind;
  readonly reason: string;
  readonly workflow_name: string | null;
  readonly head_sha: string;
  /** reprise re-ran the run: `run_attempt + 1` is on its way. */
  readonly rerun: boolean;
  /** The attempt the re-run starts, when `rerun`. */
  readonly next_attempt: number | null;
  /** The jobs the re-run starts again, when `rerun`; those judged lost otherwise. */
  readonly lost_jobs: readonly string[];
  /** How the lost jobs were judged lost, each family once: `platform` for GitHub's own failures. */
  readonly lost_job_evidence: readonly EvidenceSource[];
  /** The patterns that judged the lost jobs lost, each once; absent when no pattern did (an exact signal). */
  readonly lost_job_patterns?: readonly string[];
  /** The run stays red and reprise will not re-run it. */
  readonly final_failure: boolean;
  /** With an exact signal for a lost job: the time to recovery, counted from the loss. */
  readonly recovery?: {
    readonly lost_at: string;
    readonly early: boolean;
    readonly seconds_to_rerun: number | null;
    readonly waited_for_github_seconds: number | null;
  };
}

/** One per re-run attempt reprise started: how it ended. */
export interface RerunOutcomeEvent extends EventBase {
  readonly kind: 'rerun_outcome';
  readonly outcome: RerunOutcome;
}

/** A job queued past the threshold without a runner: a fleet that does not pick it up. */
export interface StuckQueuedEvent extends EventBase {
  readonly kind: 'stuck_queued';
  readonly job_id: number;
  readonly job_name: string;
  readonly workflow_name: string | null;
  readonly labels: readonly string[];
  readonly queued_at: string;
  readonly waited_seconds: number;
  readonly stuck_after_minutes: number;
  /** The job belongs to an attempt reprise started by a re-run. */
  readonly reprise_rerun: boolean;
  readonly reason: string;
}

/** Any event reprise publishes. */
export type RepriseEvent = DecisionEvent | RerunOutcomeEvent | StuckQueuedEvent;

/** Where events go: EventBridge when deployed, a JSON-lines file locally. */
export interface EventPublisher {
  publish(event: RepriseEvent): Promise<void>;
}
