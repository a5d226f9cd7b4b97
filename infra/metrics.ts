import { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import type { RerunOutcome } from '../lib/model.js';
import { HANDLERS } from './functions/handlers.js';

/** Every decision kind, as the worker's `decision` dimension spells it. */
export const DECISIONS = [
  'ignored',
  'run_incomplete',
  'stale',
  'attempt_cap',
  'budget_exhausted',
  'no_candidate_jobs',
  'vetoed',
  'genuine_failure',
  'no_infra_evidence',
  'dry_run',
  'retried',
  'retried_all',
  'rerun_rejected',
  'duplicate',
  'expired',
] as const;
export type DecisionName = (typeof DECISIONS)[number];

/** Decisions that count as "would re-run" for the share alarm. */
const RERUN_DECISIONS = ['retried', 'retried_all', 'dry_run'] as const satisfies readonly DecisionName[];

/**
 * Decisions on runs that reached classification: the share alarm's denominator. Routine filtering (`ignored`,
 * `duplicate`, `run_incomplete`, `stale`, `no_candidate_jobs`) is left out, which also keeps the alarm within
 * CloudWatch's limit of ten metrics per math alarm.
 */
const DECIDED = [
  ...RERUN_DECISIONS,
  'rerun_rejected',
  'genuine_failure',
  'no_infra_evidence',
  'vetoed',
  'attempt_cap',
  'budget_exhausted',
] as const satisfies readonly DecisionName[];

/** The EMF metrics the functions publish, with the dimensions they publish them under. */
export class RepriseMetrics {
  public constructor(private readonly namespace: string) {}

  public decision(decision: DecisionName, period = Duration.hours(1)): Metric {
    return this.metric(HANDLERS.worker.serviceName, 'Decision', { decision }, Stats.SUM, period);
  }

  /** `retried` + `retried_all`, published by the worker as one count. */
  public reruns(period = Duration.hours(1)): Metric {
    return this.metric(HANDLERS.worker.serviceName, 'Rerun', {}, Stats.SUM, period);
  }

  /** Percent of decided runs that were (or, in dry run, would be) re-run; 0 below `minDecisions` decided runs. */
  public rerunShare(minDecisions: number, period = Duration.hours(1)): MathExpression {
    const ids = (names: readonly DecisionName[]) => names.map((d) => `FILL(${d}, 0)`).join(' + ');
    const usingMetrics = Object.fromEntries(DECIDED.map((d) => [d, this.decision(d, period)]));
    return new MathExpression({
      expression: `IF((${ids(DECIDED)}) >= ${minDecisions}, 100 * (${ids(RERUN_DECISIONS)}) / (${ids(DECIDED)}), 0)`,
      usingMetrics,
      period,
      label: 'Re-run share of decided runs (%)',
    });
  }

  public signatureFailures(period = Duration.minutes(5)): Metric {
    return this.metric(HANDLERS.intake.serviceName, 'SignatureFailure', {}, Stats.SUM, period);
  }

  /** Installations whose retry budget was spent: each `budget_exhausted` decision. */
  public budgetExhausted(period = Duration.minutes(5)): Metric {
    return this.metric(HANDLERS.worker.serviceName, 'BudgetExhausted', {}, Stats.SUM, period);
  }

  /** Runs that waited for their re-run turn past `maxWait` and were left alone: each `expired` decision. */
  public expired(period = Duration.minutes(5)): Metric {
    return this.metric(HANDLERS.worker.serviceName, 'Expired', {}, Stats.SUM, period);
  }

  /** Runs sent back to the queue to wait for their re-run slot in the installation's pace. */
  public rerunWaiting(period = Duration.minutes(5)): Metric {
    return this.metric(HANDLERS.worker.serviceName, 'RerunWaiting', {}, Stats.SUM, period);
  }

  /** GitHub answered a request with a rate limit (403/429 with retry-after): the message waits it out. */
  public rateLimited(period = Duration.minutes(5)): Metric {
    return this.metric(HANDLERS.worker.serviceName, 'RateLimited', {}, Stats.SUM, period);
  }

  /** Times an installation's breaker opened: its re-runs kept being lost, so its automatic re-runs pause. */
  public breakerOpen(period = Duration.minutes(5)): Metric {
    return this.metric(HANDLERS.worker.serviceName, 'BreakerOpen', {}, Stats.SUM, period);
  }

  /**
   * Re-run outcomes of one kind. Red ones come from the worker's decisions; green ones from the intake, and
   * from the reconciler when a green completion never arrived: the sum of the three is the kind's count.
   */
  public rerunOutcome(outcome: RerunOutcome, period = Duration.hours(1)): MathExpression {
    const services = [HANDLERS.worker, HANDLERS.intake, HANDLERS.reconciler].map((h) => h.serviceName);
    const usingMetrics = Object.fromEntries(
      services.map((svc, i) => [`${outcome}${i}`, this.metric(svc, 'RerunOutcome', { outcome }, Stats.SUM, period)]),
    );
    return new MathExpression({
      expression: services.map((_, i) => `FILL(${outcome}${i}, 0)`).join(' + '),
      usingMetrics,
      period,
      label: `Re-run attempts ${outcome}`,
    });
  }

  /**
   * Percent of re-run attempts that recovered (ended green) among all re-run outcomes of the period; 100 below
   * `minOutcomes` outcomes, so a quiet hour with one lost re-run pages no one. Green outcomes come from the intake
   * and the reconciler, red ones from the worker: five metrics, within the ten-metric limit of a math alarm.
   */
  public recoveryShare(minOutcomes: number, period = Duration.hours(1)): MathExpression {
    const worker = HANDLERS.worker.serviceName;
    const parts: [string, string, RerunOutcome][] = [
      ['recovered_intake', HANDLERS.intake.serviceName, 'recovered'],
      ['recovered_reconciler', HANDLERS.reconciler.serviceName, 'recovered'],
      ['lost_again', worker, 'lost_again'],
      ['failed', worker, 'failed'],
      ['cancelled', worker, 'cancelled'],
    ];
    const usingMetrics = Object.fromEntries(
      parts.map(([id, svc, outcome]) => [id, this.metric(svc, 'RerunOutcome', { outcome }, Stats.SUM, period)]),
    );
    const sum = (ids: readonly string[]) => ids.map((id) => `FILL(${id}, 0)`).join(' + ');
    const all = sum(parts.map(([id]) => id));
    const recovered = sum(['recovered_intake', 'recovered_reconciler']);
    return new MathExpression({
      expression: `IF((${all}) >= ${minOutcomes}, 100 * (${recovered}) / (${all}), 100)`,
      usingMetrics,
      period,
      label: 'Re-run attempts that recovered (%)',
    });
  }

  /** Jobs the reconciler found waiting for a runner longer than `stuck_after`, each counted once. */
  public stuckQueued(period = Duration.minutes(15)): Metric {
    return this.metric(HANDLERS.reconciler.serviceName, 'StuckQueued', {}, Stats.SUM, period);
  }

  /** Invocations of the worker and the reconciler that found the GitHub App secret missing or malformed. */
  public appSecretInvalid(period = Duration.minutes(5)): MathExpression {
    return new MathExpression({
      expression: 'FILL(worker, 0) + FILL(reconciler, 0)',
      usingMetrics: {
        worker: this.metric(HANDLERS.worker.serviceName, 'AppSecretInvalid', {}, Stats.SUM, period),
        reconciler: this.metric(HANDLERS.reconciler.serviceName, 'AppSecretInvalid', {}, Stats.SUM, period),
      },
      period,
      label: 'Invocations without usable App credentials',
    });
  }

  /** EC2 events whose EKS cluster could not list the runner pods on the node (unreachable, 401/403, timeout). */
  public eksPodListingFailures(period = Duration.minutes(15)): Metric {
    return this.metric(HANDLERS.ec2Signal.serviceName, 'EksPodListingFailed', {}, Stats.SUM, period);
  }

  /** Reconciler sweeps that failed in part or whole (the next sweep carries on). */
  public sweepFailures(period = Duration.minutes(15)): Metric {
    return this.metric(HANDLERS.reconciler.serviceName, 'SweepFailed', {}, Stats.SUM, period);
  }

  /** What the reconciler repaired: released or recorded orphans, redeliveries, lost completions. */
  public reconcilerRepairs(period = Duration.hours(1)): Metric[] {
    return ['OrphanReleased', 'OrphanRecorded', 'Redelivered', 'LostCompletion'].map((name) =>
      this.metric(HANDLERS.reconciler.serviceName, name, {}, Stats.SUM, period),
    );
  }

  public rateLimitRemaining(period = Duration.minutes(5)): Metric {
    return this.metric(HANDLERS.worker.serviceName, 'RateLimitRemaining', {}, Stats.MINIMUM, period);
  }

  private metric(
    service: string,
    metricName: string,
    dimensions: Record<string, string>,
    statistic: string,
    period: Duration,
  ): Metric {
    return new Metric({
      namespace: this.namespace,
      metricName,
      dimensionsMap: { service, ...dimensions },
      statistic,
      period,
    });
  }
}
