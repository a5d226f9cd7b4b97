import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runnerSignalLookup } from '../../lib/signals/runner-lookup.js';
import { propsFromContext } from '../../infra/context.js';
import { resolveProps } from '../../infra/props/resolve.js';
import { RUNNER_PRESET_NAMES, type RunnerPreset } from '../../lib/config/runner-presets.js';
import { DEFAULT_SIGNAL_WINDOW, signalSettings } from '../../lib/config/signal-settings.js';
import { ConfigError } from '../../lib/errors.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import type { RunnerSignal } from '../../lib/model.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { openLedger } from '../../lib/ledger/ledger.js';
import { createEc2SignalHandler } from '../../lib/intake/record-ec2-signal.js';
import type { InstanceFacts } from '../../lib/signals/runner-identities.js';
import { RunnerKeys } from '../../lib/signals/runner-keys.js';
import { createSignalIntake } from '../../lib/intake/signal-intake.js';
import { MemoryLog } from '../support/memory-log.js';
import { resourcesOf, synthReprise } from '../infra/synth.js';
import { freshTable, spotInterruptionWarning } from './fixtures.js';

/**
 * One runner per provisioner, named and tagged as that provisioner's own code does it (docs/signals.md
 * cites the file and version): a spot warning for its instance must reach the job that ran on it
 * with nothing configured but the preset.
 */
const WARNING_AT = '2026-10-02T16:13:05Z';
const COMPLETED_AT = '2026-10-02T16:15:07Z';
const INSTANCE = 'i-03421942a716b3f2a';

interface Fixture {
  /** The job's `runner_name` as GitHub reports it. */
  readonly runnerName: string;
  /** What DescribeInstances answers for the runner's instance. */
  readonly instance: InstanceFacts;
}

const FIXTURES: Record<Exclude<RunnerPreset, 'actions-runner-controller'>, Fixture> = {
  // start-runner.sh: config.sh --name "$runner_name_prefix$instance_id"; the scale-up lambda's tags.
  'terraform-aws-github-runner': {
    runnerName: `linux-x64-${INSTANCE}`,
    instance: {
      tags: {
        'ghr:Application': 'github-action-runner',
        'ghr:created_by': 'scale-up-lambda',
        'ghr:Type': 'Org',
        'ghr:Owner': 'my-org',
        'ghr:runner_name_prefix': 'linux-x64-',
        Name: 'my-env-action-runner',
      },
      privateDnsName: 'ip-10-0-1-23.eu-west-1.compute.internal',
    },
  },
  // The webhook handler names the execution `<repo>-<delivery id>`; the EC2 provider tags Name with it.
  'cdk-github-runners': {
    runnerName: 'my-repo-5f0c6a40-a0a5-11ef-8b4e-2f9a3c1d7e55',
    instance: {
      tags: {
        Name: 'my-repo-5f0c6a40-a0a5-11ef-8b4e-2f9a3c1d7e55',
        'GitHubRunners:Provider': 'github-runners/Runners/EC2 Linux',
        'GitHubRunners:Repo': 'my-org/my-repo',
        'GitHubRunners:Labels': 'ec2,linux,x64',
      },
      privateDnsName: 'ip-10-0-1-24.eu-west-1.compute.internal',
    },
  },
  // runs-on--<instance-id>--<suffix>, as RunsOn's own job diagnostics split it.
  'runs-on': {
    runnerName: `runs-on--${INSTANCE}--vPaXOcNxGv`,
    instance: {
      tags: { 'runs-on-stack-name': 'runs-on' },
      privateDnsName: 'ip-10-1-44-45.eu-west-1.compute.internal',
    },
  },
};

let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ table: 'unused' });
});
afterAll(async () => {
  await dynamo?.close();
});

const found = (signals: RunnerSignal[]) => signals.map((s) => s.kind);

/** Records the spot warning as the deployed signal function would with these settings; the worker's lookup. */
async function joinAfterSpotWarning(env: Record<string, string>, fixture: Fixture) {
  const settings = signalSettings(env);
  const { table, store } = await freshTable(dynamo);
  await createEc2SignalHandler({
    store,
    describe: async (id) => (id === INSTANCE ? fixture.instance : undefined),
    tagKeys: settings.tagKeys,
    log: new MemoryLog(),
    metrics: new MemoryMetrics(),
  })(spotInterruptionWarning(WARNING_AT, INSTANCE));
  const worker = runnerSignalLookup(
    openLedger(dynamo.client, table).runnerSignals(3600),
    new RunnerKeys(settings.namePatterns),
  );
  return worker.forRunner(fixture.runnerName, COMPLETED_AT, DEFAULT_SIGNAL_WINDOW);
}

describe('runner presets: a spot warning joins the job with nothing configured but the preset', () => {
  it.each(Object.entries(FIXTURES))('%s: the runner as the provisioner names and tags it', async (preset, fixture) => {
    const signals = await joinAfterSpotWarning({ RUNNER_PRESET: preset }, fixture);
    expect(found(signals)).toContain('spot-interruption');
    expect(signals[0]).toMatchObject({ instanceId: INSTANCE, source: 'aws.ec2' });
  });

  it.each(['cdk-github-runners', 'runs-on'] as const)(
    '%s: without the preset the same runner finds nothing',
    async (preset) => {
      expect(await joinAfterSpotWarning({}, FIXTURES[preset])).toEqual([]);
    },
  );

  it('runs-on: the intake keys a running job under the instance id, so a warning counts the job it kills', async () => {
    const { table } = await freshTable(dynamo);
    const keys = new RunnerKeys(signalSettings({ RUNNER_PRESET: 'runs-on' }).namePatterns);
    const jobs = openLedger(dynamo.client, table).runnerJobs();
    const job = { jobId: 7, runId: 70, runnerName: FIXTURES['runs-on'].runnerName, repository: 'my-org/my-repo' };
    await jobs.started(job, keys.for(job.runnerName));
    expect(await jobs.runningOn([INSTANCE])).toMatchObject([job]);
  });

  it('actions-runner-controller: the pod names an agent posts join the job by the pod name', async () => {
    // ARC names the runner after its pod: EphemeralRunnerSet `<scale set>` + GenerateName "-runner-".
    const pod = 'arc-runner-set-runner-x7k2p';
    const settings = signalSettings({ RUNNER_PRESET: 'actions-runner-controller' });
    const { table, store } = await freshTable(dynamo);
    const intake = createSignalIntake({
      secrets: async () => ['agent-secret'],
      store,
      log: new MemoryLog(),
      metrics: new MemoryMetrics(),
      now: () => Date.parse(WARNING_AT),
    });
    // The body the documented Node Termination Handler template renders: the node's pods, then the node.
    const body = {
      runners: ['aws-node-x2v9d', pod, 'ip-10-0-1-23.eu-west-1.compute.internal'],
      instance_id: INSTANCE,
      kind: 'node-termination',
      reason: 'SPOT_ITN: Spot ITN received. Instance will be interrupted at 2026-10-02T16:15:05Z',
    };
    const res = await intake({
      method: 'POST',
      path: '/signals',
      headers: { authorization: 'Bearer agent-secret' },
      body: Buffer.from(JSON.stringify(body)),
    });
    expect(res.status).toBe(202);
    const worker = runnerSignalLookup(
      openLedger(dynamo.client, table).runnerSignals(3600),
      new RunnerKeys(settings.namePatterns),
    );
    expect(found(await worker.forRunner(pod, COMPLETED_AT, DEFAULT_SIGNAL_WINDOW))).toEqual(['external']);
  });
});

describe('the runner preset setting', () => {
  it('RUNNER_PRESET adds its tag keys to RUNNER_TAG_KEYS and refuses a provisioner it does not know', () => {
    expect(signalSettings({ RUNNER_PRESET: 'cdk-github-runners', RUNNER_TAG_KEYS: 'runner-name' }).tagKeys).toEqual([
      'Name',
      'runner-name',
    ]);
    expect(() => signalSettings({ RUNNER_PRESET: 'philips-runners' })).toThrow(ConfigError);
  });

  it('the construct prop reaches the intake, the worker and the EC2 signal function as RUNNER_PRESET', () => {
    const { template } = synthReprise({ runnerPreset: 'runs-on' });
    const withPreset = Object.entries(resourcesOf(template, 'AWS::Lambda::Function'))
      .filter(([, fn]) => {
        const env = (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables;
        return env?.RUNNER_PRESET === 'runs-on';
      })
      .map(([id]) => /^Reprise(\w+?)Function/.exec(id)?.[1]);
    expect(withPreset.sort()).toEqual(['Ec2Signal', 'Intake', 'Worker']);
  });

  it('the context key runnerPreset sets the prop; an unknown provisioner fails the synth', () => {
    const app = new App({ context: { runnerPreset: 'terraform-aws-github-runner' } });
    expect(propsFromContext(app.node).props.runnerPreset).toBe('terraform-aws-github-runner');
    expect(() => resolveProps({ runnerPreset: 'philips' as RunnerPreset })).toThrow(/runnerPreset: expected one of/);
    expect(RUNNER_PRESET_NAMES).toEqual([
      'terraform-aws-github-runner',
      'cdk-github-runners',
      'runs-on',
      'actions-runner-controller',
    ]);
  });
});
