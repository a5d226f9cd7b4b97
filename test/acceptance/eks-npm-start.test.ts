/**
 * Issue 43, black-box: `npm start` as a user runs it (the compiled runtime), the GitHub simulator
 * as GitHub and the Kubernetes API simulator as the EKS cluster. The spot warning for a node's
 * instance goes to the operator port as EventBridge delivers it; the run lost on a runner pod of
 * that node is re-run on the signal, counted from what GitHub (the simulator) received.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_INSTANCE, RUNNERS_ON_NODE, seedCluster } from '../kube-sim/cluster.js';
import { KubeSim } from '../kube-sim/server.js';
import { GitHubSimulator } from '../sim/index.js';
import { spotInterruptionWarning } from '../signals/fixtures.js';
import { failureAnnotation, TEXT } from '../support/evidence.js';
import { appEnv, INSTALLATION_ID } from '../support/harness.js';
import { type NpmStart, npmStart } from '../support/npm-start.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';

const SECRET = 'eks-npm-start-secret';

describe('ARC on EKS through npm start (issue 43)', () => {
  let sim: GitHubSimulator;
  let kube: KubeSim;
  let dir: string;
  let rt: NpmStart;
  let url: string;
  let adminUrl: string;
  let token: string;

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    sim.addInstallation({ id: INSTALLATION_ID, account: 'acme' });
    kube = await KubeSim.start('npm-start-cluster-token');
    seedCluster(kube);
    dir = await mkdtemp(join(tmpdir(), 'reprise-eks-'));
    rt = npmStart(['--port', '0', '--data-dir', join(dir, 'data')], {
      ...appEnv(sim.url),
      WEBHOOK_SECRET: SECRET,
      RUNNER_PRESET: 'actions-runner-controller',
      EKS_CLUSTERS: JSON.stringify([
        { name: 'runners', endpoint: kube.url, caFile: kube.certs.caFile, token: 'npm-start-cluster-token' },
      ]),
      MAX_ATTEMPTS: '3',
      TEXT_ONLY_MAX_ATTEMPTS: '2',
    });
    url = await rt.listening;
    const line = rt.lines.find((l) => l.message === 'reprise local runtime listening')!;
    adminUrl = line.admin as string;
    token = readFileSync(line.admin_token_file as string, 'utf8').trim();
  }, 120_000);
  afterAll(async () => {
    await rt?.kill('SIGTERM');
    await sim?.close();
    await kube?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('the warning is recorded under each runner pod, and the run lost on one of them is re-run once on the signal', async () => {
    const warning = { ...spotInterruptionWarning(new Date().toISOString(), NODE_INSTANCE), id: 'npm-start-warning-1' };
    const res = await fetch(`${adminUrl}/ec2-events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(warning),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ recorded: 1 + RUNNERS_ON_NODE.length });

    // Attempt 2 of a run lost on a pod of that node: the text cap (2) would stop it, the signal's (3) does not.
    const run = sim.addRun({
      repo: 'acme/arc',
      runAttempt: 2,
      jobs: [
        {
          name: 'build',
          conclusion: 'failure',
          runnerName: 'gpu-9f3k1-runner-hh2wd',
          annotations: [failureAnnotation(TEXT.selfHostedEmptyName)],
          completedAt: new Date().toISOString(),
        },
      ],
    });
    const d = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, run.id));
    expect((await post(`${url}/webhook`, d)).status).toBe(202);
    let decided: { decision?: string } | undefined;
    for (let i = 0; i < 600 && !decided; i++) {
      const body = (await (
        await fetch(`${adminUrl}/decisions`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as { decisions: { runId: number; decision?: string }[] };
      decided = body.decisions.find((x) => x.runId === run.id);
      if (!decided) await new Promise((r) => setTimeout(r, 100));
    }
    expect(decided?.decision, JSON.stringify(rt.lines.slice(-6))).toBe('retried');
    expect(rt.lines.find((l) => l.message === 'job' && l.run_id === run.id)).toMatchObject({
      verdict: 'infra',
      source: 'signal',
    });
    expect(sim.rerunTally(run.id)).toEqual({ received: 1, accepted: 1, repeats: 0 });
  });
});
