import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { deploymentSettings, type DeploymentSettings } from '../../lib/config/env.js';
import type { RepoConfig } from '../../lib/config/repo-config.js';
import { createAppClient, createClientFactory } from '../../lib/github/client.js';
import { type Ledger, openLedger } from '../../lib/ledger/ledger.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import type { RunMessage } from '../../lib/model.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import type { RunnerSignals } from '../../lib/ledger/runner-signals.js';
import { branchRunFrom, runMessageFromPayload } from '../../lib/webhook/workflow-run.js';
import { messageGroupId } from '../../lib/webhook/run-message.js';
import { workerContext } from '../../lib/compose/worker.js';
import type { GitHubClients } from '../../lib/github/client.js';
import type {
  DecisionSettings,
  WorkerContext,
  WorkerGitHub,
  WorkerObs,
  WorkerStores,
} from '../../lib/worker/context.js';
import { createWorkerHandler, type WorkerHandlerDeps } from '../../lib/worker/handler.js';
import { GitHubSimulator, simAppPrivateKey } from '../sim/index.js';
import { MemoryLog } from './memory-log.js';
import { workflowRunPayload } from './webhooks.js';

export const INSTALLATION_ID = 4242;
export const TABLE = 'reprise-test';
export const APP_ID = '1234567';

/** The simulator's App key, so auth-app signs JWTs the simulator verifies and exchanges for tokens. */
export function testPrivateKey(): string {
  return simAppPrivateKey();
}

/**
 * The environment a test deployment reads: the App's id and key, the simulator as GitHub, and
 * log redirects allowed to the simulator's host.
 */
export const appEnv = (apiUrl: string): Record<string, string> => ({
  APP_ID,
  PRIVATE_KEY: testPrivateKey(),
  GITHUB_API_URL: apiUrl,
  LOG_HOSTS: '127.0.0.1',
});

/**
 * What a test may put in place of the production assembly, flat: a store, a setting (the
 * repository defaults are merged, not replaced), an output, the clock, the GitHub clients, or
 * what the handler adds (`defer`, `onOutcome`, …).
 */
export type WorkerOverrides = Partial<
  Omit<WorkerStores, 'repoConfig'> &
    Omit<DecisionSettings, 'defaults'> &
    WorkerObs &
    Pick<WorkerGitHub, 'deliveryLog'> &
    Pick<WorkerHandlerDeps, 'defer' | 'maxReceiveCount' | 'onOutcome' | 'decisionNeedMs' | 'owner'> & {
      /** The ledger whose attempts and requeues the worker uses. */
      ledger: Pick<Ledger, 'attempts' | 'requeues'>;
      configSource: WorkerStores['repoConfig'];
      client: (installationId: number | null) => GitHubClients;
      /** The clock of the decision and of every store the assembly builds. */
      now: () => number;
      defaults: Partial<RepoConfig>;
    }
>;

export interface Harness {
  readonly sim: GitHubSimulator;
  /** Parsed from `appEnv` by the runtime's own settings parser. */
  readonly settings: DeploymentSettings;
  readonly dynamo: EmbeddedDynamo;
  readonly ledger: Ledger;
  readonly signals: RunnerSignals;
  readonly log: MemoryLog;
  readonly metrics: MemoryMetrics;
  /** The installation clients every worker of the harness uses. */
  readonly client: (installationId: number | null) => GitHubClients;
  deps(over?: WorkerOverrides): WorkerHandlerDeps;
  worker(over?: WorkerOverrides): ReturnType<typeof createWorkerHandler>;
  /**
   * The message the intake enqueues for the run's `completed` delivery. The intake recorded the
   * run as its branch's newest first (when no newer one was), so the harness does too: a worker
   * of the harness waits for that write before it decides.
   */
  message(runId: number, deliveryId?: string, installationId?: number): RunMessage;
  /** Real SQS records, made by sending through the embedded FIFO queue and receiving them. */
  sqsEvent(messages: readonly RunMessage[]): SQSEvent;
  close(): Promise<void>;
}

/** A pace of re-runs no suite reaches: for suites that are not about the pace. */
export const UNPACED_ENV = { PACE_PER_MINUTE: '1000000', PACE_PER_HOUR: '0', WRITE_SPACING_MS: '0' } as const;

export async function startHarness(): Promise<Harness> {
  const sim = await GitHubSimulator.start();
  sim.addInstallation({ id: INSTALLATION_ID, account: 'acme' });
  // The re-run budget and the breaker are off and the pace too fast to notice: suites that test
  // them bring their own with a clock they control.
  const settings = deploymentSettings({
    ...appEnv(sim.url),
    RETRY_BUDGET_PER_HOUR: '0',
    BREAKER_MIN_OUTCOMES: '0',
    ...UNPACED_ENV,
  });
  const dynamo = await startDynamo({ table: TABLE });
  const ledger = openLedger(dynamo.client, TABLE);
  const signals = ledger.runnerSignals(settings.signalTtlSeconds);
  const log = new MemoryLog();
  const metrics = new MemoryMetrics();
  let seq = 0;
  const recording: Promise<unknown>[] = [];
  const client = createClientFactory({
    apiUrl: settings.apiUrl,
    credentials: { kind: 'app', appId: APP_ID, privateKey: testPrivateKey() },
    log,
    retryBaseMs: 1,
    // A loaded machine must not time a request out: timeouts are tested on a virtual clock (github/request-timeout.test.ts).
    requestTimeoutMs: 10 * 60_000,
  });
  const appClient = createAppClient({
    apiUrl: settings.apiUrl,
    credentials: { kind: 'app', appId: APP_ID, privateKey: testPrivateKey() },
    log,
    retryBaseMs: 1,
    requestTimeoutMs: 10 * 60_000,
  });
  /** The production assembly, then whatever the test overrides, each in its place in the context. */
  const deps = (over: WorkerOverrides = {}): WorkerHandlerDeps => {
    const { ledger: overLedger, configSource, client: overClient, now, defaults, ...rest } = over;
    // The run attempts keep the harness's clock unless the test brings its own ledger.
    const { attempts, requeues } = overLedger ?? ledger;
    const base = workerContext(settings, {
      ledger: { ...(now ? ledger.at(now) : ledger), attempts, requeues },
      client: overClient ?? client,
      appClient,
      signals,
      log,
      metrics,
      owner: `worker-${++seq}`,
      leaseMs: 60_000,
      // A test's clock drives the pace, the budget and the breaker as well as the decision.
      ...(now && { now }),
    });
    const pick = <T extends object>(from: T): Partial<T> =>
      Object.fromEntries(
        Object.keys(from).flatMap((k) => (k in rest ? [[k, rest[k as keyof typeof rest]]] : [])),
      ) as Partial<T>;
    const context: WorkerContext = {
      stores: { ...base.stores, ...pick(base.stores), ...(configSource && { repoConfig: configSource }) },
      github: { ...base.github, ...pick(base.github) },
      settings: { ...base.settings, ...pick(base.settings), defaults: { ...base.settings.defaults, ...defaults } },
      obs: { ...base.obs, ...pick(base.obs) },
      clock: base.clock,
      owner: rest.owner ?? base.owner,
    };
    return {
      ...context,
      ...(rest.defer && { defer: rest.defer }),
      ...(rest.maxReceiveCount !== undefined && { maxReceiveCount: rest.maxReceiveCount }),
      ...(rest.onOutcome && { onOutcome: rest.onOutcome }),
      ...(rest.decisionNeedMs !== undefined && { decisionNeedMs: rest.decisionNeedMs }),
    };
  };
  return {
    sim,
    settings,
    dynamo,
    ledger,
    signals,
    log,
    metrics,
    client,
    deps,
    worker: (over) => {
      const handle = createWorkerHandler(deps(over));
      return async (event, time) => {
        await Promise.all(recording.splice(0));
        return handle(event, time);
      };
    },
    message: (runId, deliveryId = `delivery-${runId}-${++seq}`, installationId = INSTALLATION_ID) => {
      const payload = workflowRunPayload(sim, runId, installationId);
      const reported = branchRunFrom(payload);
      if (typeof reported !== 'string') recording.push(ledger.branchRuns.record(reported.key, reported.run));
      return runMessageFromPayload(payload, deliveryId);
    },
    sqsEvent: (messages) => {
      const q = new EmbeddedFifoQueue({ name: 'reprise-runs.fifo' });
      // The embedded queue takes a message before its send returns.
      const runs = embeddedRunQueue(q);
      for (const m of messages) void runs.send(m, messageGroupId(m), m.deliveryId);
      const records = [];
      for (let r = q.receive(10); r.length > 0; r = q.receive(10)) records.push(...r);
      return { Records: records };
    },
    close: async () => {
      await sim.close();
      await dynamo.close();
    },
  };
}

/**
 * One harness for a test file: started before its first test and closed after its last; before
 * each test its log and the simulator's request log are cleared (and its injected faults, with
 * `clearFaults`). The object is filled in place when the harness starts, so a file holds it in a
 * const and its tests read it as they would the harness itself.
 */
export function harnessForFile(opts: { readonly clearFaults?: boolean } = {}): Harness {
  const h = {} as Harness;
  beforeAll(async () => {
    Object.assign(h, await startHarness());
  });
  afterAll(async () => h.close?.());
  beforeEach(() => {
    h.log.clear();
    if (opts.clearFaults) h.sim.clearFaults();
    h.sim.resetRequests();
  });
  return h;
}
