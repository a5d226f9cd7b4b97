/**
 * Issue 23 point 3: what runs on Lambda, tested as deployed against an independent AWS
 * emulator. The synthesized stack's table, queues and secrets are created in moto from the
 * template's own properties, the bundled handlers of dist/lambda/ run with each function's
 * template Environment, and the journey is played against the GitHub simulator.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { RunInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { EventBridgeClient, TestEventPatternCommand } from '@aws-sdk/client-eventbridge';
import { ChangeMessageVisibilityCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { ScanCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lostJob } from '../support/evidence.js';
import { workflowJobPayload } from '../support/job-events.js';
import { INSTALLATION_ID } from '../support/harness.js';
import { signedDelivery, webhookEvent, workflowRunPayload } from '../support/webhooks.js';
import { type Deployment, deploy } from './setup.js';
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
    // As `cdk synth -c report=check_run -c pacePerMinute=20 -c eventBusName=reprise-events`.
    d = await deploy(MOTO!, { report: 'check_run', pacePerMinute: '20', eventBusName: 'reprise-events' });
    d.sim.addInstallation({ id: INSTALLATION_ID, account: 'acme' });
    d.sim.addInstallation({ id: OTHER_INSTALLATION, account: 'other' });
  }, 180_000);
  afterAll(async () => d?.close());

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
    const run = d.sim.addRun({ repo: 'acme/moto-one', jobs: [lostJob('test', LOST_RUNNER)] });
    const answer = await deliver('workflow_run', workflowRunPayload(d.sim, run.id));
    expect(answer.status).toBe(202);
    expect(await d.drain()).toBe(1);
    expect(d.sim.rerunTally(run.id)).toMatchObject({ received: 1, accepted: 1 });
    expect(decisionOf(run.id)).toEqual([expect.objectContaining({ decision: 'retried' })]);
    const events = await d.busEvents();
    expect(events).toContainEqual(
      expect.objectContaining({
        source: 'reprise',
        'detail-type': 'Reprise Decision',
        detail: expect.objectContaining({ run_id: run.id, decision: 'retried' }),
      }),
    );
  });
});
