import type { Duration } from 'aws-cdk-lib';

/** The objects nested in the construct's props: the alarm thresholds and the EKS clusters. */

/** Alarm thresholds. Every alarm notifies the stack's SNS topic. */
export interface RepriseAlarmThresholds {
  /**
   * Re-runs (`retried` + `retried_all`) in one hour above which the alarm fires.
   * @default 30
   */
  readonly rerunsPerHour?: number;
  /**
   * Share of decided runs that were re-run (or would be, in dry run), in percent, above which the alarm fires.
   * @default 50
   */
  readonly rerunSharePercent?: number;
  /**
   * Decided runs per hour needed before the share alarm may fire, so two runs with one re-run do not page anyone.
   * @default 10
   */
  readonly rerunShareMinDecisions?: number;
  /**
   * Webhook signature failures in five minutes above which the alarm fires (wrong secret or forged deliveries).
   * @default 5
   */
  readonly signatureFailures?: number;
  /**
   * GitHub rate limit remaining (lowest sample in five minutes) below which the alarm fires.
   * @default 500
   */
  readonly rateLimitRemaining?: number;
  /**
   * Age of the oldest message in the work queue above which the alarm fires.
   * @default Duration.minutes(15)
   */
  readonly oldestMessageAge?: Duration;
  /**
   * Share of re-run attempts that recovered (ended green) in an hour, in percent, below which the alarm fires.
   * @default 50
   */
  readonly recoverySharePercent?: number;
  /**
   * Re-run outcomes per hour needed before the recovery-share alarm may fire.
   * @default 5
   */
  readonly recoveryShareMinOutcomes?: number;
  /**
   * Failed reconciler sweeps in 15 minutes above which the alarm fires (one failed sweep is retried by the next).
   * @default 1
   */
  readonly sweepFailures?: number;
}

/** An EKS cluster whose nodes run runner pods (Actions Runner Controller): see docs/signals.md, Kubernetes. */
export interface RepriseEksCluster {
  /** The cluster's name: the construct maps the EC2 signal function's role into it with an access entry. */
  readonly name: string;
  /**
   * Label selector of the runner pods.
   * @default 'app.kubernetes.io/component=runner' - every runner pod of Actions Runner Controller
   */
  readonly runnerSelector?: string;
  /**
   * The namespaces the runner pods run in: the access entry's view policy is scoped to them.
   * @default - the whole cluster
   */
  readonly namespaces?: readonly string[];
  /**
   * Whether the construct maps the role into the cluster with an access entry; `false` for a cluster whose
   * authentication mode is `CONFIG_MAP`, where the role is mapped in `aws-auth` instead (docs/signals.md).
   * @default true
   */
  readonly accessEntry?: boolean;
}
