import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decisions } from '../../lib/cli/decisions.js';
import { defaultAdminUrl } from '../../lib/cli/local-runtime.js';
import type { DecisionRecord } from '../../lib/records.js';
import { openLedger } from '../../lib/ledger/ledger.js';
import type { Runtime } from '../../lib/local/runtime.js';
import { localDynamoClient, startDynamo, type EmbeddedDynamo } from '../../lib/local/dynamo.js';
import type { GitHubSimulator } from '../sim/index.js';
import { failureAnnotation, TEXT } from '../support/evidence.js';
import { type LocalSetup, startLocal } from '../support/local.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';
import { captureIo, closedPort, FakeCloudFormation } from './support.js';

const SECRET = 'decisions-secret';

describe('reprise decisions', () => {
  let sim: GitHubSimulator;
  let rt: Runtime;
  const admin = () => ({ REPRISE_ADMIN_TOKEN: rt.adminToken });
  let dynamo: EmbeddedDynamo;
  const runs: Record<string, number> = {};

  let local: LocalSetup;

  beforeAll(async () => {
    local = await startLocal({ secret: SECRET });
    ({ sim, rt } = local);
    const spec = {
      lost: { repo: 'acme/web', message: TEXT.selfHostedEmptyName },
      genuine: { repo: 'acme/api', message: TEXT.exitCode(2) },
    };
    for (const [key, s] of Object.entries(spec)) {
      const run = sim.addRun({
        repo: s.repo,
        jobs: [{ name: 'test', conclusion: 'failure', annotations: [failureAnnotation(s.message)] }],
      });
      runs[key] = run.id;
      const d = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, run.id));
      expect((await post(`${rt.url}/webhook`, d)).status).toBe(202);
      await rt.poller.drain(10_000);
    }
    dynamo = await startDynamo({ table: 'reprise-deployed' });
  });
  afterAll(async () => {
    await local.close();
    await dynamo.close();
  });

  it('success from the local runtime: newest first, with the reason, filters by repo, since and limit', async () => {
    const io = captureIo(admin());
    expect(await decisions(['--local', rt.adminUrl], io)).toBe(0);
    const lines = io.out().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^DECIDED +REPOSITORY +RUN +ATTEMPT +DECISION +REASON$/);
    expect(lines[1]).toMatch(
      new RegExp(`^\\S+Z +acme/api +${runs.genuine} +1 +genuine_failure +job "test" failed for a real reason`),
    );
    expect(lines[2]).toMatch(
      new RegExp(`^\\S+Z +acme/web +${runs.lost} +1 +retried +1 job\\(s\\) lost to infrastructure`),
    );

    const json = captureIo(admin());
    expect(await decisions(['--local', rt.adminUrl, '--repo', 'acme/web', '--since', '1h', '--json'], json)).toBe(0);
    const list = JSON.parse(json.out()) as DecisionRecord[];
    expect(list.map((d) => [d.repository, d.runId, d.decision])).toEqual([['acme/web', runs.lost, 'retried']]);
    expect(list[0]).not.toHaveProperty('message');

    const limited = captureIo(admin());
    expect(await decisions(['--local', rt.adminUrl, '--limit', '1', '--json'], limited)).toBe(0);
    expect((JSON.parse(limited.out()) as DecisionRecord[]).map((d) => d.repository)).toEqual(['acme/api']);

    const future = captureIo(admin());
    expect(await decisions(['--local', rt.adminUrl, '--since', '2999-01-01T00:00:00Z'], future)).toBe(0);
    expect(future.out()).toBe(`No decisions in local runtime ${rt.adminUrl} match.\n`);
  });

  it('--local without a URL is the default admin URL: ADMIN_PORT, else PORT + 1, else 3001', async () => {
    const adminPort = new URL(rt.adminUrl).port;
    const io = captureIo({ ...admin(), ADMIN_PORT: adminPort });
    expect(await decisions(['--local'], io)).toBe(0);
    expect(io.out()).toMatch(/acme\/web +\d+ +1 +retried/);
    // Followed by another option, it still takes no value.
    const json = captureIo({ ...admin(), PORT: String(Number(adminPort) - 1) });
    expect(await decisions(['--local', '--repo', 'acme/api', '--json'], json)).toBe(0);
    expect((JSON.parse(json.out()) as DecisionRecord[]).map((d) => d.repository)).toEqual(['acme/api']);
    expect(defaultAdminUrl({})).toBe('http://127.0.0.1:3001');
    expect(defaultAdminUrl({ PORT: '8080' })).toBe('http://127.0.0.1:8081');
    expect(defaultAdminUrl({ PORT: '8080', ADMIN_PORT: '9000' })).toBe('http://127.0.0.1:9000');
  });

  it('success from DynamoDB, the table named by --table or by the stack output TableName', async () => {
    const ledger = openLedger(dynamo.client, 'reprise-deployed');
    const msg = JSON.parse(JSON.stringify(await rt.ledger.attempts.get(sim.repoId('acme/web'), runs.lost!, 1)))
      .message as string;
    await ledger.attempts.claim(JSON.parse(msg), 'lambda-1', 60_000);
    await ledger.attempts.finalise(JSON.parse(msg), 'lambda-1', 'retried', 'from the deployed table');
    const io = captureIo({}, { dynamodb: dynamo.client });
    expect(await decisions(['--table', 'reprise-deployed'], io)).toBe(0);
    expect(io.out()).toMatch(/acme\/web +\d+ +1 +retried +from the deployed table/);
    const viaStack = captureIo(
      {},
      {
        dynamodb: dynamo.client,
        cloudFormation: new FakeCloudFormation({ Reprise: { TableName: 'reprise-deployed' } }),
      },
    );
    expect(await decisions(['--stack', 'Reprise', '--json'], viaStack)).toBe(0);
    expect((JSON.parse(viaStack.out()) as DecisionRecord[])[0]?.reason).toBe('from the deployed table');
  });

  it('failure: an unreachable local runtime is exit 1 with the URL tried', async () => {
    const port = await closedPort();
    const io = captureIo({ REPRISE_ADMIN_TOKEN: 'any' });
    expect(await decisions(['--local', `http://127.0.0.1:${port}`], io)).toBe(1);
    expect(io.err()).toContain(
      `cannot reach the local runtime: GET http://127.0.0.1:${port}/decisions?limit=20 failed (ECONNREFUSED)`,
    );
  });

  it('failure: an unknown table is exit 1 naming it', async () => {
    const io = captureIo({}, { dynamodb: dynamo.client });
    expect(await decisions(['--table', 'no-such-table'], io)).toBe(1);
    expect(io.err()).toContain('cannot read DynamoDB table no-such-table: not found in AWS');
  });

  it('no credentials: AWS credentials that cannot be loaded are one clear message that says none were found, exit 1', async () => {
    const client = localDynamoClient(dynamo.socketPath, {
      credentials: async () => {
        throw Object.assign(new Error('Could not load credentials from any providers'), {
          name: 'CredentialsProviderError',
        });
      },
    });
    const io = captureIo({}, { dynamodb: client });
    expect(await decisions(['--table', 'reprise-deployed'], io)).toBe(1);
    expect(io.err()).toContain(
      'no AWS credentials found (Could not load credentials from any providers); set AWS_PROFILE',
    );
    expect(io.err()).not.toContain('refused');
    client.destroy();
  });

  it.each([
    [['--local', 'x', '--since', 'yesterday'], '--since: expected a duration'],
    [['--local', 'x', '--limit', '0'], '--limit: expected a whole number ≥ 1'],
    [['--local', 'x', '--repo', 'acme'], '--repo: expected owner/name'],
    [[], 'pass --stack NAME, --table NAME or --local URL'],
    [['--local', 'x', '--table', 't'], 'use either --local or --table/--stack'],
  ])('bad usage %j → exit 2: %s', async (argv, message) => {
    const io = captureIo({});
    const code = await decisions(argv, io);
    expect(io.err()).toContain(message);
    expect(code).toBe(message.startsWith('use either') ? 1 : 2);
  });
});
