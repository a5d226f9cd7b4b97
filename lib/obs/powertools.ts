import { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, Metrics } from '@aws-lambda-powertools/metrics';
import type { Log, MetricSink } from './types.js';

/** Powertools Logger behind the domain's narrow Log: one JSON line per call. */
export function createLog(serviceName: string, level?: string): Log & { readonly logger: Logger } {
  const logger = new Logger({ serviceName, ...(level && { logLevel: level as 'INFO' }) });
  return {
    logger,
    debug: (m, extra) => logger.debug(m, extra ?? {}),
    info: (m, extra) => logger.info(m, extra ?? {}),
    warn: (m, extra) => logger.warn(m, extra ?? {}),
    error: (m, extra) => logger.error(m, extra ?? {}),
  };
}

/**
 * EMF metrics through Powertools. Each dimensioned metric is published on its own so one
 * flush never mixes dimension sets.
 */
export class PowertoolsMetrics implements MetricSink {
  constructor(readonly metrics: Metrics) {}

  count(name: string, value = 1, dimension?: { name: string; value: string }): void {
    if (!dimension) {
      this.metrics.addMetric(name, MetricUnit.Count, value);
      return;
    }
    const single = this.metrics.singleMetric();
    single.addDimension(dimension.name, dimension.value);
    single.addMetric(name, MetricUnit.Count, value);
  }

  /** An empty flush makes Powertools log a "no metrics" warning; most invocations have none to publish. */
  flush(): void {
    if (this.metrics.hasStoredMetrics()) this.metrics.publishStoredMetrics();
  }
}

/** Powertools metrics (CloudWatch embedded metric format) under a namespace, dimensioned by service. */
export const createMetrics = (namespace: string, serviceName: string): PowertoolsMetrics =>
  new PowertoolsMetrics(new Metrics({ namespace, serviceName }));
