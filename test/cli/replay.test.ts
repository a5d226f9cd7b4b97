import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { replay } from '../../lib/cli/replay.js';
import { type Runtime, startRuntime } from '../../lib/local/runtime.js';
import type { RunMessage } from '../../lib/model.js';
import { parseRunMessage } from '../../lib/webhook/run-message.js';
import { runMessageFromPayload } from '../../lib/webhook/workflow-run.js';
import type { RunOutcome } from '../../lib/worker/result.js';
import { GitHubSimulator } from '../sim/index.js';
import { failureAnnotation, TEXT } from '../support/evidence.js';
import { appEnv, INSTALLATION_ID, startHarness, TABLE, type Harness } from '../support/harness.js';
import { MemoryLog } from '../support/memory-log.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';
import { captureIo, FakeCloudFormation, FakeSqs } from './support.js';

const SECRET = 'replay-secret';
const LOST = TEXT.selfHostedEmptyName;
const EXIT = TEXT.exitCode(2);

const failedRun = (message: string) => ({
  repo: 'acme/replay',
  jobs: [{ name: 'test', conclusion: 'failure' as const, annotations: [failureAnnotation(message)] }],
});

describe('reprise replay through the local runtime', () => {
  let sim: GitHubSimulator;
  let rt: Runtime;
  const outcomes: { message: RunMessage; outcome: RunOutcome }[] = [];
  const env = () => ({ ...appEnv(sim.url), REPRISE_ADMIN_TOKEN: rt?.adminToken ?? '' });
  const reruns = (runId: number) => sim.reruns.filter((r) => r.runId === runId).length;
  const decided = (runId: number) => outcomes.filter((o) => o.message.runId === runId).map((o) => o.outcome.decision);
  const deliver = async (runId: number, guid?: string) => {
    const res = await post(
      `${rt.url}/webhook`,
      await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, runId), guid),
    );
    await rt.poller.drain(10_000);
    return res.status;
  };

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    sim.addInstallation({ id: INSTALLATION_ID, account: 'acme' });
    rt = await startRuntime({
      env: { ...env(), WEBHOOK_SECRET: SECRET },
      log: new MemoryLog(),
      port: 0,
      retryBaseMs: 1,
      onOutcome: (message, outcome) => outcomes.push({ message, outcome }),
    });
  });
  afterAll(async () => {
    await rt.close();
    await sim.close();
  });
  beforeEach(() => {
    sim.onRedeliver = null;
  });

  it('replay of a decided attempt says "already decided: <decision>" and yields no second re-run, even with --force', async () => {
    const run = sim.addRun(failedRun(LOST));
    expect(await deliver(run.id)).toBe(202);
    expect(decided(run.id)).toEqual(['retried']);
    expect(reruns(run.id)).toBe(1);

    const io = captureIo(env());
    expect(await replay([`acme/replay#${run.id}@1`, '--local', rt.adminUrl], io)).toBe(0);
    const host = new URL(sim.url).host;
    expect(io.out()).toMatch(
      new RegExp(
        `^GitHub host: ${host} \\(${sim.url}\\)\nalready decided: retried \\(1 job\\(s\\) lost to infrastructure: test; `,
      ),
    );
    const forced = captureIo(env());
    expect(await replay([`acme/replay#${run.id}@1`, '--local', rt.adminUrl, '--force'], forced)).toBe(1);
    expect(forced.err()).toContain(`refused: attempt 1 of run ${run.id} was re-run (retried)`);

    await rt.poller.drain(10_000);
    expect(reruns(run.id)).toBe(1);
    expect(decided(run.id)).toEqual(['retried']);
  });

  it('success: an attempt that was never decided is enqueued, decided once, and then reported as decided', async () => {
    const run = sim.addRun(failedRun(LOST));
    const io = captureIo(env());
    expect(await replay([`acme/replay#${run.id}`, '--local', rt.adminUrl], io)).toBe(0);
    expect(io.out()).toMatch(
      new RegExp(`^enqueued acme/replay#${run.id}@1 for a new decision \\(delivery replay-[0-9a-f-]{36}\\)$`, 'm'),
    );
    await rt.poller.drain(10_000);
    expect(decided(run.id)).toEqual(['retried']);
    expect(reruns(run.id)).toBe(1);

    const again = captureIo(env());
    expect(await replay([`acme/replay#${run.id}@1`, '--local', rt.adminUrl, '--json'], again)).toBe(0);
    expect(JSON.parse(again.out())).toMatchObject({ outcome: 'already_decided', decision: 'retried' });
    await rt.poller.drain(10_000);
    expect(reruns(run.id)).toBe(1);
  });

  it('--force gives back a decision that did not re-run, and the attempt is decided again', async () => {
    const run = sim.addRun(failedRun(EXIT));
    await deliver(run.id);
    expect(decided(run.id)).toEqual(['genuine_failure']);
    const io = captureIo(env());
    expect(await replay([`acme/replay#${run.id}@1`, '--local', rt.adminUrl, '--force'], io)).toBe(0);
    expect(io.out()).toContain('the earlier record (genuine_failure) was released');
    await rt.poller.drain(10_000);
    expect(decided(run.id)).toEqual(['genuine_failure', 'genuine_failure']);
    expect(reruns(run.id)).toBe(0);
  });

  it('an attempt another worker is deciding (live claim) is reported in progress, exit 1, nothing sent', async () => {
    const run = sim.addRun(failedRun(LOST));
    const msg = runMessageFromPayload(workflowRunPayload(sim, run.id), 'held');
    await rt.ledger.attempts.claim(msg, 'worker-elsewhere', 60_000);
    const io = captureIo(env());
    expect(await replay([`acme/replay#${run.id}`, '--local', rt.adminUrl, '--force'], io)).toBe(1);
    expect(io.err()).toContain(`attempt 1 of run ${run.id} is claimed by worker-elsewhere`);
    await rt.poller.drain(10_000);
    expect(decided(run.id)).toEqual([]);
  });

  it('a run still in progress is refused: a decision now would block the real one', async () => {
    const run = sim.addRun({ repo: 'acme/replay', status: 'in_progress', jobs: [{ name: 'test', conclusion: null }] });
    const io = captureIo(env());
    expect(await replay([`acme/replay#${run.id}`, '--local', rt.adminUrl], io)).toBe(1);
    expect(io.err()).toContain(`acme/replay#${run.id}@1 is in_progress; replay it once it has completed`);
  });

  it('success: a failed delivery is redelivered by GitHub, reaches the intake and is decided', async () => {
    const run = sim.addRun(failedRun(LOST));
    const guid = randomUUID();
    sim.addDelivery({
      guid,
      event: 'workflow_run',
      action: 'completed',
      statusCode: 502,
      installationId: INSTALLATION_ID,
    });
    sim.onRedeliver = async (d) => {
      const res = await post(
        `${rt.url}/webhook`,
        await signedDelivery(SECRET, d.event, workflowRunPayload(sim, run.id), d.guid),
      );
      return res.status;
    };
    const io = captureIo(env());
    expect(await replay([guid], io)).toBe(0);
    expect(io.out()).toMatch(
      new RegExp(`^redelivery requested: ${guid} \\(workflow_run.completed, delivery \\d+, last answered 502\\)$`, 'm'),
    );
    await rt.poller.drain(10_000);
    expect(decided(run.id)).toEqual(['retried']);

    // The redelivery succeeded: a second replay of the GUID would only be dropped as a duplicate.
    const again = captureIo(env());
    expect(await replay([guid], again)).toBe(0);
    expect(again.out()).toContain(`already delivered: ${guid} (workflow_run.completed) was answered 202`);
    expect(sim.count('POST', /\/app\/hook\/deliveries\/\d+\/attempts$/)).toBe(1);
    expect(reruns(run.id)).toBe(1);
  });

  it('unknown run: exit 1 with the URL tried', async () => {
    const io = captureIo(env());
    expect(await replay(['acme/replay#424242', '--local', rt.adminUrl], io)).toBe(1);
    expect(io.err()).toContain(
      `run 424242 of acme/replay not found: GET ${sim.url}/repos/acme/replay/actions/runs/424242 answered 404`,
    );
  });

  it('unknown delivery: exit 1 with the URL tried', async () => {
    const guid = randomUUID();
    const io = captureIo(env());
    expect(await replay([guid], io)).toBe(1);
    expect(io.err()).toContain(
      `no delivery ${guid} among the App's recent deliveries (GET ${sim.url}/app/hook/deliveries)`,
    );
  });

  it('bad credentials: an unknown token is one clear message, exit 1, nothing enqueued', async () => {
    const run = sim.addRun(failedRun(LOST));
    const io = captureIo({ GITHUB_TOKEN: 'ghp_unknown', GITHUB_API_URL: sim.url });
    expect(await replay([`acme/replay#${run.id}`, '--local', rt.adminUrl], io)).toBe(1);
    expect(io.err()).toContain(
      `GitHub refused the credentials (401 Bad credentials) for GET ${sim.url}/repos/acme/replay/actions/runs/${run.id}`,
    );
    await rt.poller.drain(10_000);
    expect(decided(run.id)).toEqual([]);
  });

  it('--dead-letters with an empty dead-letter queue redrives nothing, exit 0', async () => {
    const io = captureIo(env());
    expect(await replay(['--dead-letters', '--local', rt.adminUrl, '--json'], io), io.err()).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({ redriven: 0, released: 0 });
  });

  it('the admin routes refuse malformed requests with 400 and a reason', async () => {
    const headers = { authorization: `Bearer ${rt.adminToken}` };
    const bad = await fetch(`${rt.adminUrl}/replay`, { method: 'POST', headers, body: '{"message":{"v":1}}' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain('message.repository: expected an object');
    const notJson = await fetch(`${rt.adminUrl}/replay`, { method: 'POST', headers, body: 'nope' });
    expect(notJson.status).toBe(400);
    const limit = await fetch(`${rt.adminUrl}/decisions?limit=lots`, { headers });
    expect(limit.status).toBe(400);
    expect(((await limit.json()) as { error: string }).error).toBe('limit: expected a whole number, got "lots"');
  });

  it.each([
    [[], 'expected one delivery GUID or owner/repo#run_id[@attempt]'],
    [['acme/replay#12'], 'pass --local URL, --stack NAME, or --queue-url URL with --table NAME'],
    [['acme/replay#12', '--queue-url', 'https://sqs.example/q.fifo'], 'pass --local URL, --stack NAME'],
    [['acme/replay#12', '--local', 'http://x', '--table', 't'], 'use either --local or the deployed queue'],
    [['--dead-letters', '--stack', 'Reprise'], 'deployed, use aws sqs start-message-move-task'],
    [['--dead-letters', 'acme/replay#12', '--local', 'http://x'], '--dead-letters takes no delivery or run'],
  ])('bad usage %j → exit 2: %s', async (argv, message) => {
    const io = captureIo(env());
    expect(await replay(argv, io)).toBe(2);
    expect(io.err()).toContain(message);
  });
});

describe('reprise replay to the deployed queue (SQS in memory, the ledger table in dynalite)', () => {
  let h: Harness;
  const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/reprise-runs.fifo';
  const env = () => appEnv(h.sim.url);

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('checks the ledger, sends one FIFO message the worker decides, then reports the attempt as decided', async () => {
    const sqs = new FakeSqs();
    const cf = new FakeCloudFormation({ Reprise: { QueueUrl: QUEUE, TableName: TABLE } });
    const aws = { sqs, cloudFormation: cf, dynamodb: h.dynamo.client };
    const run = h.sim.addRun(failedRun(LOST));
    const io = captureIo(env(), aws);
    expect(await replay([`acme/replay#${run.id}@1`, '--stack', 'Reprise'], io)).toBe(0);
    expect(sqs.sent).toHaveLength(1);
    const sent = sqs.sent[0]!;
    expect(sent.QueueUrl).toBe(QUEUE);
    expect(sent.MessageGroupId).toBe(`${h.sim.repoId('acme/replay')}#${run.id}`);
    expect(sent.MessageDeduplicationId).toMatch(/^replay-[0-9a-f-]{36}$/);
    const message = parseRunMessage(sent.MessageBody ?? '');
    expect(message).toMatchObject({
      runId: run.id,
      runAttempt: 1,
      installationId: INSTALLATION_ID,
      conclusion: 'failure',
    });

    const result = await h.worker()(h.sqsEvent([message]));
    expect(result.batchItemFailures).toEqual([]);
    expect((await h.ledger.attempts.get(message.repository.id, run.id, 1))?.decision).toBe('retried');
    expect(h.sim.reruns.filter((r) => r.runId === run.id)).toHaveLength(1);

    const again = captureIo(env(), aws);
    expect(await replay([`acme/replay#${run.id}@1`, '--queue-url', QUEUE, '--table', TABLE], again)).toBe(0);
    expect(again.out()).toContain('already decided: retried');
    expect(sqs.sent).toHaveLength(1);
  });
});
