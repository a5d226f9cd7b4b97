/**
 * Issue 23 point 3: what runs on Lambda, tested as deployed against an independent AWS
 * emulator. The synthesized stack's table, queues and secrets are created in moto from the
 * template's own properties, the bundled handlers of dist/lambda/ run with each function's
 * template Environment, and the journey is played against the GitHub simulator.
 */
import { randomUUID } from 'node:crypto';
import { RunInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { EventBridgeClient, PutEventsCommand, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { ChangeMessageVisibilityCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { ScanCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lostJob } from '../support/evidence.js';
import { APP_ID, testPrivateKey } from '../support/harness.js';
import { deployed } from '../infra/settings-support.js';
import { workflowJobPayload } from '../support/job-events.js';
import { signedDelivery, webhookEvent, workflowRunPayload } from '../support/webhooks.js';
import { type Deployment, deploy, type FunctionKey } from './setup.js';
import { allows, roleOfFunction, statementsOfRole } from '../support/iam-policy.js';
import { motoServerPath } from './moto-server.js';
import { awsConfig } from './stack.js';

const MOTO = motoServerPath();
const CI = process.env.CI === 'true';
if (!MOTO && !CI) {
  console.warn(
    'test:deployed skipped: moto_server is not on the PATH. Install it with pip install "moto[server]==5.2.*" ' +
      '(CI installs it and fails without it).',
  );
}

describe('the deployed test needs moto_server', () => {
  it.runIf(CI)('in CI (CI=true), moto_server is installed: its absence fails the run', () => {
    expect(
      MOTO,
      'moto_server is not on the PATH: .ci/run installs it with pip install "moto[server]==5.2.*"',
    ).toBeDefined();
  });
});

const OTHER_INSTALLATION = 4343;
const LOST_RUNNER = 'runner-i-0abc1234def567890';

describe.skipIf(!MOTO)('deployed: the bundled handlers with their template environments, in moto', () => {
  let d: Deployment;
  beforeAll(async () => {
    // As `cdk synth -c report=check_run -c pacePerMinute=6 -c writeSpacingMs=3000 -c eventBusName=reprise-events`:
    // an installation's POSTs 3 s apart, so its second lost run waits for its turn in the queue.
    d = await deploy(MOTO!, {
      report: 'check_run',
      pacePerMinute: '6',
      writeSpacingMs: '3000',
      eventBusName: 'reprise-events',
    });
    d.sim.addInstallation({ id: OTHER_INSTALLATION, account: 'other' });
  }, 180_000);
  afterAll(async () => d?.close());

  let installations = 5000;
  /** A fresh installation (its own pace of re-runs) and its first lost run. */
  function lostRun(name: string) {
    const id = ++installations;
    const account = `org${id}`;
    d.sim.addInstallation({ id, account });
    const run = d.sim.addRun({ repo: `${account}/${name}`, jobs: [lostJob('test', LOST_RUNNER)] });
    return { run, installationId: id, account, payload: workflowRunPayload(d.sim, run.id, id) };
  }

  async function deliver(event: string, payload: unknown, guid: string = randomUUID()) {
    const signed = await signedDelivery(d.webhookSecret, event, payload, guid);
    const res = await d.fn.intake.invoke<{ statusCode: number; body: string }>(
      webhookEvent(signed.headers, { body: Buffer.from(signed.body).toString('base64'), isBase64Encoded: true }),
    );
    return { status: res.statusCode, body: JSON.parse(res.body) as Record<string, unknown> };
  }
  const decisionOf = (runId: number, w = d.fn.worker) => w.named('decision').filter((l) => l.run_id === runId);
  const visibleCount = async (url: string) =>
    Number(
      (
        await d.sqs.send(
          new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }),
        )
      ).Attributes!.ApproximateNumberOfMessages,
    );

  it('signed webhook → FIFO queue → worker → exactly one re-run, and its decision event on the bus', async () => {
    const { run, payload } = lostRun('moto-one');
    const answer = await deliver('workflow_run', payload);
    expect(answer.status).toBe(202);
    expect(await d.drain()).toBe(1);
    expect(d.sim.rerunTally(run.id)).toMatchObject({ received: 1, accepted: 1 });
    expect(decisionOf(run.id)).toEqual([expect.objectContaining({ decision: 'retried' })]);
    // Issue 42 point 7: the deployed worker signs the App's JWT from its secret and reads the delivery
    // log (GitHub checks the signature); with no failed delivery, the intake's record decides.
    expect(decisionOf(run.id)[0]).toMatchObject({ app_requests: 1, stale_check: 'record' });
    expect(d.sim.appRequests.filter((r) => r.path === '/app/hook/deliveries' && r.status === 200)).not.toEqual([]);
    const events = await d.busEvents();
    expect(events).toContainEqual(
      expect.objectContaining({
        source: 'reprise',
        'detail-type': 'Reprise Decision',
        detail: expect.objectContaining({ run_id: run.id, decision: 'retried' }),
      }),
    );
  });

  it('a duplicate delivery (the same GUID) is taken once, and a second delivery of the run attempt re-runs nothing more', async () => {
    const { run, payload } = lostRun('moto-dup');
    const guid = randomUUID();
    expect((await deliver('workflow_run', payload, guid)).status).toBe(202);
    // GitHub's redelivery keeps the GUID.
    const again = await deliver('workflow_run', payload, guid);
    expect(again.status).toBeLessThan(300);
    expect(await d.drain()).toBe(1);
    // The same completion under another GUID reaches the worker, which finds the attempt decided.
    expect((await deliver('workflow_run', payload)).status).toBe(202);
    expect(await d.drain()).toBe(1);
    expect(d.sim.rerunTally(run.id)).toMatchObject({ received: 1, accepted: 1 });
    expect(decisionOf(run.id).map((l) => l.decision)).toEqual(['retried', 'duplicate']);
  });

  it('a visibility deferral: the second lost run of an installation waits for its turn hidden in the queue, then is re-run once', async () => {
    const { run: firstRun, installationId, account } = lostRun('moto-paced');
    const runs = [firstRun, d.sim.addRun({ repo: `${account}/moto-paced`, jobs: [lostJob('test', LOST_RUNNER)] })];
    for (const run of runs) {
      expect((await deliver('workflow_run', workflowRunPayload(d.sim, run.id, installationId))).status).toBe(202);
    }
    const first = await d.pollOnce();
    expect(first.records).toHaveLength(2);
    expect(first.failed).toHaveLength(1);
    // The batch decides its two runs side by side: whichever took the second turn waits for it.
    const ids = runs.map((r) => r.id);
    const waits = d.fn.worker.named('run waits').filter((l) => ids.includes(l.run_id as number));
    expect(waits).toHaveLength(1);
    const waiting = waits[0]!.run_id as number;
    expect(Number(waits[0]!.wait_seconds)).toBeGreaterThanOrEqual(1);
    expect(d.sim.rerunTally(ids.find((id) => id !== waiting)!)).toMatchObject({ received: 1, accepted: 1 });
    expect(d.sim.rerunTally(waiting).received).toBe(0);
    expect(d.fn.worker.named('visibility change refused')).toEqual([]);
    // Hidden by the worker's ChangeMessageVisibility, not by the queue's 480 s default: it comes back on its own.
    expect((await d.pollOnce()).records).toHaveLength(0);
    await d.drain();
    for (const run of runs) expect(d.sim.rerunTally(run.id)).toMatchObject({ received: 1, accepted: 1 });
    expect(decisionOf(waiting).map((l) => l.decision)).toEqual(['retried']);
  });

  it('a rate limit past 12 hours is deferred inside the 12 hours from the first receive, and SQS accepts the deferral', async () => {
    const { run, payload } = lostRun('moto-late');
    d.sim.injectFault({ method: 'POST', path: /rerun-failed-jobs$/, status: 403, resetAfter: 50_000, times: 1 });
    expect((await deliver('workflow_run', payload)).status).toBe(202);
    const { records, failed } = await d.pollOnce();
    expect(failed).toEqual([records[0]!.messageId]);
    const line = d.fn.worker.named('message failed; it will be retried').find((l) => l.run_id === run.id);
    expect(Number(line?.retry_after_seconds)).toBeGreaterThan(43_200);
    expect(Number(line?.retry_in_seconds)).toBeLessThanOrEqual(43_200 - 60);
    expect(Number(line?.retry_in_seconds)).toBeGreaterThan(43_000);
    expect(d.fn.worker.named('visibility change refused')).toEqual([]);
    // The time passes: the message comes back, GitHub answers again, one re-run.
    await d.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: d.workQueue.url,
        ReceiptHandle: records[0]!.receiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    await d.drain();
    expect(d.sim.rerunTally(run.id)).toMatchObject({ received: 2, accepted: 1 });
  });

  it("an EC2 spot interruption warning, routed by the template's own rule, is a signal; the run lost on that instance is re-run on it", async () => {
    const ec2 = new EC2Client(awsConfig(d.moto.url));
    const instanceId = (await ec2.send(new RunInstancesCommand({ ImageId: 'ami-12c6146b', MinCount: 1, MaxCount: 1 })))
      .Instances![0]!.InstanceId!;
    expect(
      await ec2Events([
        {
          detailType: 'EC2 Spot Instance Interruption Warning',
          detail: { 'instance-id': instanceId, 'instance-action': 'terminate' },
        },
      ]),
    ).toBe(1);
    // No annotation, no log line: only the signal says the runner was lost.
    const { installationId, account } = lostRun('moto-spot-other');
    const run = d.sim.addRun({
      repo: `${account}/moto-spot`,
      jobs: [
        { name: 'test', conclusion: 'failure', runnerName: `gh-runner-${instanceId}`, annotations: [], log: null },
      ],
    });
    expect((await deliver('workflow_run', workflowRunPayload(d.sim, run.id, installationId))).status).toBe(202);
    await d.drain();
    expect(decisionOf(run.id)).toEqual([expect.objectContaining({ decision: 'retried' })]);
    expect(d.fn.worker.named('job').find((l) => l.run_id === run.id)).toMatchObject({
      verdict: 'infra',
      source: 'signal',
    });
    expect(d.sim.rerunTally(run.id).accepted).toBe(1);
  });

  it('issue 40: a spot reclaim (warning, then the terminated state change) through the signal function asks the worker (the one function with GitHub credentials) to end the run; one force-cancel, then one re-run', async () => {
    const { installationId, account } = lostRun('moto-early-other');
    const instanceId = 'i-0e1a2b3c4d5e6f708';
    const repo = `${account}/moto-early`;
    d.sim.setRepoFile(repo, '.github/reprise.yml', 'early_recovery: last_job\n');
    d.sim.rerunFailedJobsIncludesCancelled = true;
    const run = d.sim.addRun({
      repo,
      jobs: [
        { name: 'lint', conclusion: 'success' },
        { name: 'test', conclusion: null, status: 'in_progress', runnerName: `gh-runner-${instanceId}` },
      ],
    });
    // The intake records the job on its runner from its `workflow_job` `in_progress`.
    const job = run.job('test')!;
    const inProgress = {
      ...workflowJobPayload(d.sim, run.id, job.id, 'in_progress'),
      installation: { id: installationId },
    };
    expect((await deliver('workflow_job', inProgress)).status).toBe(202);
    // A spot reclaim, routed by the template's rules: the warning, then the state change. The state
    // change alone could be the workload's own shutdown and would count with text strength only.
    expect(
      await ec2Events([
        {
          detailType: 'EC2 Spot Instance Interruption Warning',
          detail: { 'instance-id': instanceId, 'instance-action': 'terminate' },
        },
        {
          detailType: 'EC2 Instance State-change Notification',
          detail: { 'instance-id': instanceId, state: 'terminated' },
        },
      ]),
    ).toBe(2);
    // The request waits in the work queue; the worker proves the loss and ends the run.
    expect(await d.drain()).toBeGreaterThanOrEqual(1);
    expect(d.sim.count('POST', new RegExp(`/actions/runs/${run.id}/force-cancel$`))).toBe(1);
    expect(d.sim.run(run.id).status).toBe('completed');
    expect(d.fn.worker.named('early recovery').find((l) => l.run_id === run.id)).toMatchObject({ outcome: 'ended' });
    // The run's completion, as GitHub delivers it, is decided as the lost job it is.
    expect((await deliver('workflow_run', workflowRunPayload(d.sim, run.id, installationId))).status).toBe(202);
    await d.drain();
    expect(decisionOf(run.id)).toEqual([expect.objectContaining({ decision: 'retried' })]);
    expect(d.fn.worker.named('job').find((l) => l.run_id === run.id)).toMatchObject({
      verdict: 'infra',
      source: 'signal',
    });
    expect(d.sim.rerunTally(run.id)).toMatchObject({ received: 1, accepted: 1 });
  });

  /**
   * EC2 events put on moto's default bus, routed by the template's own rules (put there with their own
   * patterns; their target a queue the test reads), handed to the EC2 signal function as EventBridge invokes it.
   */
  async function ec2Events(entries: { source?: string; detailType: string; detail: Record<string, unknown> }[]) {
    const eventBridge = new EventBridgeClient(awsConfig(d.moto.url));
    const target = await d.queue('test-ec2-signal-target');
    const ec2FunctionArn = d.stack.resolve({ 'Fn::GetAtt': [d.ids.ec2Signal, 'Arn'] });
    const rules = Object.entries(d.stack.resources).filter(
      ([, r]) =>
        r.Type === 'AWS::Events::Rule' &&
        (r.Properties?.Targets as { Arn: unknown }[] | undefined)?.some(
          (t) => d.stack.resolve(t.Arn) === ec2FunctionArn,
        ),
    );
    expect(rules.length).toBeGreaterThan(0);
    for (const [id, rule] of rules) {
      await eventBridge.send(
        new PutRuleCommand({ Name: id, EventPattern: JSON.stringify(rule.Properties!.EventPattern) }),
      );
      await eventBridge.send(new PutTargetsCommand({ Rule: id, Targets: [{ Id: 'ec2-signal', Arn: target.arn }] }));
    }
    for (const e of entries) {
      const instance = e.detail['instance-id'];
      await eventBridge.send(
        new PutEventsCommand({
          Entries: [
            {
              Source: e.source ?? 'aws.ec2',
              DetailType: e.detailType,
              ...(typeof instance === 'string' && {
                Resources: [`arn:aws:ec2:eu-west-1:123456789012:instance/${instance}`],
              }),
              Detail: JSON.stringify(e.detail),
            },
          ],
        }),
      );
    }
    const delivered = await target.take();
    for (const event of delivered) await d.fn.ec2Signal.invoke(event);
    return delivered.length;
  }

  it('an EC2 shutting-down with no warning before it → text cap: its second lost attempt is left at text_only_max_attempts; after a spot warning, the exact cap', async () => {
    const ec2 = new EC2Client(awsConfig(d.moto.url));
    const launch = async () =>
      (await ec2.send(new RunInstancesCommand({ ImageId: 'ami-12c6146b', MinCount: 1, MaxCount: 1 }))).Instances![0]!
        .InstanceId!;
    const [self1, self2, spot1, spot2] = [await launch(), await launch(), await launch(), await launch()];
    const shuttingDown = (id: string) => ({
      detailType: 'EC2 Instance State-change Notification',
      detail: { 'instance-id': id, state: 'shutting-down' },
    });
    const warning = (id: string) => ({
      detailType: 'EC2 Spot Instance Interruption Warning',
      detail: { 'instance-id': id, 'instance-action': 'terminate' },
    });
    // A job that runs `sudo shutdown` on its ephemeral runner: the state change, and nothing before it.
    expect(await ec2Events([shuttingDown(self1), shuttingDown(self2)])).toBe(2);
    // A spot reclaim: the warning first, then the state change.
    expect(await ec2Events([warning(spot1), warning(spot2)])).toBe(2);
    expect(await ec2Events([shuttingDown(spot1), shuttingDown(spot2)])).toBe(2);

    /** A run lost on `first` (no annotation, no log: only the signals speak), lost again on `second`. */
    const runOn = (first: string, second: string) => {
      const { installationId, account } = lostRun(`moto-stop-${first}`);
      const silent = { conclusion: 'failure' as const, annotations: [], log: null };
      const run = d.sim.addRun({
        repo: `${account}/moto-stop`,
        jobs: [{ name: 'test', runnerName: `gh-runner-${first}`, ...silent }],
        onRerun: () => ({ runnerName: `gh-runner-${second}`, ...silent }),
      });
      return { run, installationId };
    };
    const self = runOn(self1, self2);
    const spot = runOn(spot1, spot2);
    for (const { run, installationId } of [self, spot]) {
      expect((await deliver('workflow_run', workflowRunPayload(d.sim, run.id, installationId))).status).toBe(202);
    }
    await d.drain();
    for (const { run, installationId } of [self, spot]) {
      expect(d.sim.run(run.id).runAttempt).toBe(2);
      expect((await deliver('workflow_run', workflowRunPayload(d.sim, run.id, installationId))).status).toBe(202);
    }
    await d.drain();

    const jobs = (runId: number) => d.fn.worker.named('job').filter((l) => l.run_id === runId);
    expect(decisionOf(self.run.id).map((l) => l.decision)).toEqual(['retried', 'attempt_cap']);
    expect(jobs(self.run.id).map((l) => [l.verdict, l.source])).toEqual([
      ['infra', 'state-change'],
      ['infra', 'state-change'],
    ]);
    expect(decisionOf(spot.run.id).map((l) => l.decision)).toEqual(['retried', 'retried']);
    expect(jobs(spot.run.id).map((l) => l.source)).toEqual(['signal', 'signal']);
    expect(d.sim.rerunTally(self.run.id).accepted).toBe(1);
    expect(d.sim.rerunTally(spot.run.id).accepted).toBe(2);
  });

  it('the reconciler: with -c report=check_run the deployed reconciler reports a stuck-queued job with a check run', async () => {
    const run = d.sim.addRun({
      repo: 'other/moto-stuck',
      jobs: [{ name: 'build', status: 'queued', conclusion: null }],
    });
    const job = d.sim.run(run.id).job('build', 1)!;
    const payload = {
      ...workflowJobPayload(d.sim, run.id, job.id, 'queued'),
      installation: { id: OTHER_INSTALLATION },
    };
    expect((await deliver('workflow_job', payload)).body.reason).toBe('job recorded as queued');
    // Twenty minutes pass for the queued job (its record is backdated in the table).
    const { Items = [] } = await d.dynamo.send(new ScanCommand({ TableName: d.tableName }));
    const item = Items.find((i) => i.jobId?.N === String(job.id) && i.queuedAt);
    expect(item).toBeDefined();
    await d.dynamo.send(
      new UpdateItemCommand({
        TableName: d.tableName,
        Key: { pk: item!.pk!, sk: item!.sk! },
        UpdateExpression: 'SET queuedAt = :t',
        ExpressionAttributeValues: { ':t': { N: String(Date.now() - 20 * 60_000) } },
      }),
    );
    const sweep = await d.fn.reconciler.invoke<{ stuckReported: number }>({});
    expect(sweep.stuckReported).toBe(1);
    const reports = d.sim.checkRuns.filter((c) => c.repo === 'other/moto-stuck' && /stuck/.test(c.output.title ?? ''));
    expect(reports).toHaveLength(1);
    const events = await d.busEvents();
    expect(events).toContainEqual(
      expect.objectContaining({
        'detail-type': 'Reprise Stuck Queued Job',
        detail: expect.objectContaining({ job_id: job.id }),
      }),
    );
  });

  it('App secret missing, then malformed: alarmed (AppSecretInvalid) with the fix logged, messages deferred, not dead-lettered; fixed, the next invocation re-runs once', async () => {
    // As the stack creates it, before the operator puts the App's credentials in.
    await d.putAppSecret(d.appSecretPlaceholder);
    const worker = await d.coldStart('worker');
    const { run, payload } = lostRun('moto-secret');
    expect((await deliver('workflow_run', payload)).status).toBe(202);

    const held = await d.pollOnce(worker);
    expect(held.failed).toEqual(held.records.map((r) => r.messageId));
    expect(worker.metric('AppSecretInvalid')).toBe(1);
    const [fault] = worker.named('GitHub App secret cannot be used: runs wait in the queue until it is fixed');
    expect(fault).toMatchObject({ level: 'error', secret: d.appSecretArn });
    expect(String(fault!.fix)).toContain(`put-secret-value --secret-id ${d.appSecretArn}`);
    expect(worker.named('run waits for the App secret')[0]).toMatchObject({ wait_seconds: 60 });
    expect(worker.named('visibility change refused')).toEqual([]);
    // Deferred by the worker: not visible again at once (the failed invocation would leave it 480 s too;
    // the log line above and no refusal say it was the worker's minute).
    expect((await d.pollOnce(worker)).records).toHaveLength(0);

    // Malformed: the next invocation reads the secret afresh (no five-minute cache) and holds again.
    await d.putAppSecret('-----BEGIN RSA PRIVATE KEY----- pasted without its JSON');
    const back = async () =>
      d.sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: d.workQueue.url,
          ReceiptHandle: held.records[0]!.receiptHandle,
          VisibilityTimeout: 0,
        }),
      );
    await back();
    const again = await d.pollOnce(worker);
    expect(again.failed).toHaveLength(1);
    expect(worker.metric('AppSecretInvalid')).toBe(2);
    expect(worker.named('run waits for the App secret').at(-1)).toMatchObject({ receive_count: 2, wait_seconds: 360 });

    // The reconciler skips its sweep on the same fault, counted and logged, without failing.
    const reconciler = await d.coldStart('reconciler');
    expect(await reconciler.invoke({})).toEqual({ skipped: 'the GitHub App secret cannot be used' });
    expect(reconciler.metric('AppSecretInvalid')).toBe(1);

    // Fixed: the warm worker reads it at its next invocation, and the run is re-run once.
    await d.putAppSecret(JSON.stringify({ appId: APP_ID, privateKey: testPrivateKey() }));
    await d.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: d.workQueue.url,
        ReceiptHandle: again.records[0]!.receiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    await d.drain(worker);
    expect(worker.named('GitHub App secret is usable again')).toHaveLength(1);
    expect(d.sim.rerunTally(run.id)).toMatchObject({ received: 1, accepted: 1 });
    expect(await visibleCount(d.deadLetterQueue.url)).toBe(0);
  });

  it('App secret rotated: a function started after the rotation uses the new credentials', async () => {
    const token = `ghs_rotated${randomUUID().replace(/-/g, '')}`;
    d.sim.addToken(token);
    await d.putAppSecret(JSON.stringify({ token }));
    const worker = await d.coldStart('worker');
    const { run, payload } = lostRun('moto-rotated');
    d.sim.resetRequests();
    expect((await deliver('workflow_run', payload)).status).toBe(202);
    await d.drain(worker);
    expect(decisionOf(run.id, worker)).toEqual([expect.objectContaining({ decision: 'retried' })]);
    // No JWT exchange: the rotated secret is a token, used as it is.
    expect(d.sim.count('POST', /\/app\/installations\/\d+\/access_tokens$/)).toBe(0);
    await d.putAppSecret(JSON.stringify({ appId: APP_ID, privateKey: testPrivateKey() }));
  });

  it('every deployable setting the running functions read, from cold start to the last invocation, is one the schema gives them (readBy)', async () => {
    const undeclared: string[] = [];
    for (const key of Object.keys(d.fn) as (keyof typeof d.fn)[]) {
      const reads = new Set(await d.fn[key].envReads());
      for (const { name, s } of deployed) {
        if (reads.has(s.env as string) && !s.readBy.includes(key)) undeclared.push(`${key} reads ${s.env} (${name})`);
      }
    }
    expect(undeclared).toEqual([]);
    // The setting of this deployment (-c report=check_run) reached the reconciler that reads it.
    expect(await d.fn.reconciler.envReads()).toContain('REPORT');
    expect(d.environments.reconciler.REPORT).toBe('check_run');
  });

  it('issue 42 point 6: a flood of unsigned POST /signals to the deployed signal intake beside GitHub deliveries (each twice): every delivery answered 202, every flood post 401, each lost run re-run once', async () => {
    // moto runs no API Gateway throttle and no Lambda concurrency limit: the routes' own throttles
    // and the signal intake's reserved concurrency are held by the template's tests. Here the
    // bundles themselves: an unsigned post costs the signal intake a 401 and GitHub's door nothing.
    const lost = [lostRun('moto-flood-a'), lostRun('moto-flood-b'), lostRun('moto-flood-c')];
    const floodAnswers: number[] = [];
    const flood = async (): Promise<void> => {
      for (let i = 0; i < 50; i++) {
        const res = await d.fn.signalIntake.invoke<{ statusCode: number }>(
          webhookEvent(
            { authorization: 'Bearer not-the-secret', 'content-type': 'application/json' },
            {
              body: JSON.stringify({ runners: ['runner-linux-x64-7f3a'], kind: 'terminated' }),
              isBase64Encoded: false,
            },
          ),
        );
        floodAnswers.push(res.statusCode);
      }
    };
    const deliveries = async (): Promise<number[]> => {
      const answers: number[] = [];
      for (const { payload } of lost)
        for (let copy = 0; copy < 2; copy++) answers.push((await deliver('workflow_run', payload)).status);
      return answers;
    };
    const [, , answers] = await Promise.all([flood(), flood(), deliveries()]);
    expect(answers).toEqual(Array(lost.length * 2).fill(202));
    expect(floodAnswers).toEqual(Array(100).fill(401));
    await d.drain();
    for (const { run } of lost) expect(d.sim.rerunTally(run.id), run.repo).toMatchObject({ received: 1, accepted: 1 });
  });

  it("least privilege, as deployed: every table request each function's bundle sent in this journey is one its own synthesized policy allows (LeadingKeys judged by a strict evaluator), and the signal intake touched signal items only", async () => {
    // An agent's post, so the internet-facing signal intake sends its requests too.
    const secret = String(
      (await d.secrets.send(new GetSecretValueCommand({ SecretId: d.environments.signalIntake.SIGNAL_SECRET_ARN! })))
        .SecretString,
    );
    const posted = await d.fn.signalIntake.invoke<{ statusCode: number }>(
      webhookEvent(
        { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        { body: JSON.stringify({ runners: ['moto-agent-runner'], kind: 'terminated' }), isBase64Encoded: false },
      ),
    );
    expect(posted.statusCode).toBe(202);

    const tableId = Object.keys(d.stack.resources).find(
      (id) => d.stack.resources[id]!.Type === 'AWS::DynamoDB::Table',
    )!;
    const tableArn = d.stack.resolve({ 'Fn::GetAtt': [tableId, 'Arn'] });
    const refused: string[] = [];
    for (const k of Object.keys(d.fn) as FunctionKey[]) {
      const statements = statementsOfRole(d.stack.resources, roleOfFunction(d.stack.resources, d.ids[k]));
      const calls = d.tableCalls[k];
      expect(calls.length, `${k} sent no table request in the journey`).toBeGreaterThan(0);
      for (const call of calls) {
        expect(call.table).toBe(d.tableName);
        const request = {
          action: call.action,
          resource: tableArn,
          ...(call.leadingKeys && { leadingKeys: call.leadingKeys }),
        };
        if (!allows(statements, request, d.stack.resolve))
          refused.push(`${k} ${call.action} ${call.leadingKeys?.join(',') ?? '(no key)'}`);
      }
    }
    expect([...new Set(refused)]).toEqual([]);
    const signalKeys = d.tableCalls.signalIntake.flatMap((c) => c.leadingKeys ?? ['(scan)']);
    expect(signalKeys.filter((pk) => !/^(RUNNER|SIGNALPOST|RUNNERJOB)#/.test(pk))).toEqual([]);
    expect(signalKeys).toContain('RUNNER#moto-agent-runner');
    // The evaluator is not lenient: the same policy refuses the intake's requests on the worker's items.
    const intakePolicy = statementsOfRole(d.stack.resources, roleOfFunction(d.stack.resources, d.ids.signalIntake));
    expect(
      allows(
        intakePolicy,
        { action: 'dynamodb:PutItem', resource: tableArn, leadingKeys: ['RUN#1#2'] },
        d.stack.resolve,
      ),
    ).toBe(false);
  });
  it("the intake's PutItem on a claim key is refused by its deployed policy (and its Update and Delete); the PutItem of a re-run's outcome it sent on moto is allowed", async () => {
    // A lost run re-run, then its green attempt 2 delivered: the intake records the outcome.
    const { run, installationId } = lostRun('moto-outcome');
    expect((await deliver('workflow_run', workflowRunPayload(d.sim, run.id, installationId))).status).toBe(202);
    expect(await d.drain()).toBe(1);
    expect(d.sim.rerunTally(run.id)).toMatchObject({ accepted: 1 });
    const green = await deliver('workflow_run', workflowRunPayload(d.sim, run.id, installationId));
    expect(green.body).toMatchObject({ reason: 'outcome recorded: recovered' });

    const tableId = Object.keys(d.stack.resources).find(
      (id) => d.stack.resources[id]!.Type === 'AWS::DynamoDB::Table',
    )!;
    const tableArn = d.stack.resolve({ 'Fn::GetAtt': [tableId, 'Arn'] });
    const intake = statementsOfRole(d.stack.resources, roleOfFunction(d.stack.resources, d.ids.intake));
    const may = (action: string, pk: string) =>
      allows(intake, { action: `dynamodb:${action}`, resource: tableArn, leadingKeys: [pk] }, d.stack.resolve);
    const repoId = d.sim.repoId(run.repo);
    const claim = `RUN#${repoId}#${run.id}`;
    // The claim of the attempt the worker decided is in the table, under the key the intake may not write.
    const stored = await d.dynamo.send(new ScanCommand({ TableName: d.tableName }));
    expect(stored.Items!.map((i) => i.pk!.S)).toContain(claim);
    for (const action of ['PutItem', 'UpdateItem', 'DeleteItem']) expect(may(action, claim), action).toBe(false);
    expect(may('GetItem', claim)).toBe(true);

    const puts = d.tableCalls.intake.filter((c) => c.action === 'dynamodb:PutItem');
    const marker = `RUNOUTCOME#${repoId}#${run.id}`;
    expect(puts.map((c) => c.leadingKeys![0])).toContain(marker);
    for (const c of d.tableCalls.intake) {
      expect(
        allows(intake, { action: c.action, resource: tableArn, leadingKeys: c.leadingKeys ?? [] }, d.stack.resolve),
        `${c.action} ${c.leadingKeys?.join(',')}`,
      ).toBe(true);
      if (c.action !== 'dynamodb:GetItem') expect(c.leadingKeys?.some((k) => k.startsWith('RUN#'))).toBe(false);
    }
  });
});
