/**
 * Issue 43 end to end without AWS: an EC2 spot warning posted to the local runtime's operator
 * port (`POST /ec2-events`, as EventBridge delivers it) for the instance behind an EKS node →
 * the runtime asks the cluster's API (the simulator: TLS under its own CA, a bearer token) for
 * the runner pods on that node → a signal per pod → the failed job that ran on one of those pods
 * is re-run on `signal` evidence, up to `max_attempts` rather than the text cap.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ledgerSource } from '../../lib/cli/ledger-source.js';
import { checkEksListings } from '../../lib/cli/status-checks.js';
import type { Ec2Event } from '../../lib/signals/ec2-events.js';
import { captureIo } from '../cli/support.js';
import { NODE_INSTANCE, RUNNERS_ON_NODE, seedCluster } from '../kube-sim/cluster.js';
import { KubeSim } from '../kube-sim/server.js';
import { spotInterruptionWarning } from '../signals/fixtures.js';
import { failureAnnotation, TEXT } from '../support/evidence.js';
import { type LocalSetup, startLocal } from '../support/local.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';

const SECRET = 'eks-e2e-secret';
const LOST = failureAnnotation(TEXT.selfHostedEmptyName);

let kube: KubeSim;
let local: LocalSetup;

beforeAll(async () => {
  kube = await KubeSim.start('local-cluster-token');
  local = await startLocal({
    secret: SECRET,
    env: {
      RUNNER_PRESET: 'actions-runner-controller',
      EKS_CLUSTERS: JSON.stringify([
        { name: 'runners', endpoint: kube.url, caFile: kube.certs.caFile, token: 'local-cluster-token' },
      ]),
      MAX_ATTEMPTS: '3',
      TEXT_ONLY_MAX_ATTEMPTS: '2',
    },
  });
});
afterAll(async () => {
  await local?.close();
  await kube?.close();
});
beforeEach(() => {
  seedCluster(kube);
  kube.access = { list: new Set(['nodes', 'pods']) };
});

/** The spot warning, now, as AWS delivers it to the function. */
const warningNow = (id: string): Ec2Event => ({
  ...spotInterruptionWarning(new Date().toISOString(), NODE_INSTANCE),
  id,
});

async function postEc2(event: unknown, token = local.rt.adminToken): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${local.rt.adminUrl}/ec2-events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(event),
  });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

/** A run at attempt 2 whose one job failed on `runner` with the lost-communication annotation. */
async function lostRunOn(runner: string) {
  const { sim, rt } = local;
  const run = sim.addRun({
    repo: 'acme/arc',
    runAttempt: 2,
    jobs: [
      {
        name: 'build',
        conclusion: 'failure',
        runnerName: runner,
        annotations: [LOST],
        completedAt: new Date().toISOString(),
      },
    ],
  });
  const delivered = await post(
    `${rt.url}/webhook`,
    await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, run.id)),
  );
  expect(delivered.status).toBe(202);
  await rt.poller.drain(20_000);
  return {
    run,
    decision: local.outcomes.find((o) => o.message.runId === run.id)?.outcome.decision,
    job: local.log.named('job').find((l) => l.run_id === run.id),
  };
}

describe('ARC on EKS through the local runtime (issue 43)', () => {
  it('POST /ec2-events answers 2xx once the warning is recorded under each runner pod of the node', async () => {
    const answer = await postEc2(warningNow('5c1f0b5e-0001-4a4e-9b1e-000000000001'));
    expect(answer.status).toBe(200);
    // The instance id and the three runner pods on its node.
    expect(answer.body).toEqual({ recorded: 1 + RUNNERS_ON_NODE.length });
    expect(kube.requests.every((r) => r.status === 200)).toBe(true);
  });

  it('a failed job on that pod is re-run with signal evidence, past the text cap to max_attempts', async () => {
    await postEc2(warningNow('5c1f0b5e-0001-4a4e-9b1e-000000000002'));
    const { run, decision, job } = await lostRunOn('linux-x64-7xk2p-runner-b8d9v');
    expect(decision).toBe('retried');
    expect(job).toMatchObject({ verdict: 'infra', source: 'signal' });
    expect(local.sim.run(run.id).runAttempt).toBe(3);
  });

  it('a job on a pod of another node has only its text: at attempt 2 the text cap holds', async () => {
    await postEc2(warningNow('5c1f0b5e-0001-4a4e-9b1e-000000000003'));
    const { decision, job } = await lostRunOn('linux-x64-7xk2p-runner-zz9q1');
    expect(decision).toBe('attempt_cap');
    expect(job?.source).not.toBe('signal');
  });

  it('a cluster answering 403 still records the instance id, and the log names the cause', async () => {
    kube.access = { list: new Set() };
    const answer = await postEc2(warningNow('5c1f0b5e-0001-4a4e-9b1e-000000000004'));
    expect(answer).toEqual({ status: 200, body: { recorded: 1 } });
    const line = local.log
      .named('cannot list the runner pods on the EKS cluster; recording the instance keys only')
      .at(-1);
    expect(line).toMatchObject({ cluster: 'runners', instance_id: NODE_INSTANCE, status: 403 });
    expect(local.rt.metrics.get('EksPodListingFailed')).toBeGreaterThanOrEqual(1);

    // reprise status names it, read from the runtime's operator port as `--local` reads it.
    const io = captureIo({ REPRISE_ADMIN_TOKEN: local.rt.adminToken });
    const check = await checkEksListings(await ledgerSource(io, { local: local.rt.adminUrl }));
    expect(check.status).toBe('fail');
    expect(check.detail).toMatch(
      /^the signal function cannot list pods on cluster runners: 403 nodes is forbidden: User ".*" cannot list resource "nodes"/,
    );
    expect(check.fix).toMatch(/AmazonEKSViewPolicy/);

    // Once the cluster answers again, status says so.
    kube.access = { list: new Set(['nodes', 'pods']) };
    await postEc2(warningNow('5c1f0b5e-0001-4a4e-9b1e-000000000008'));
    const again = await checkEksListings(await ledgerSource(io, { local: local.rt.adminUrl }));
    expect(again).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^runners: listed the runner pods at /),
    });
  });

  it('the route asks for the admin token, and refuses a body that is not one event', async () => {
    expect((await postEc2(warningNow('5c1f0b5e-0001-4a4e-9b1e-000000000005'), 'wrong')).status).toBe(401);
    expect((await postEc2([warningNow('x')])).status).toBe(400);
    const res = await fetch(`${local.rt.adminUrl}/ec2-events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${local.rt.adminToken}` },
      body: 'not json',
    });
    expect(res.status).toBe(400);
  });

  it('an EC2 event of no interest is answered with why it was ignored', async () => {
    const running = { ...warningNow('5c1f0b5e-0001-4a4e-9b1e-000000000006'), 'detail-type': 'EC2 AMI State Change' };
    expect(await postEc2(running)).toEqual({
      status: 200,
      body: { recorded: 0, ignored: 'detail-type EC2 AMI State Change' },
    });
  });

  it('the public port does not take EC2 events', async () => {
    const res = await fetch(`${local.rt.url}/ec2-events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${local.rt.adminToken}` },
      body: JSON.stringify(warningNow('5c1f0b5e-0001-4a4e-9b1e-000000000007')),
    });
    expect(res.status).toBe(404);
  });
});
