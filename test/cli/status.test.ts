import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { status } from '../../lib/cli/status.js';
import { appEnv, INSTALLATION_ID, startHarness, TABLE, type Harness } from '../support/harness.js';
import { captureIo, FakeCloudFormation } from './support.js';
import { MERGE_QUEUE_PERMISSIONS } from '../sim/permissions.js';

const HOOK = 'https://reprise.example.com/webhook';
const hoursAgo = (h: number): string => new Date(Date.now() - h * 3_600_000).toISOString();

describe('reprise status', () => {
  let h: Harness;
  const aws = () => ({
    dynamodb: h.dynamo.client,
    cloudFormation: new FakeCloudFormation({ Reprise: { WebhookUrl: HOOK, TableName: TABLE } }),
  });

  beforeAll(async () => {
    h = await startHarness();
    const run = h.sim.addRun({ repo: 'acme/status', jobs: [{ name: 'test', conclusion: 'failure' }] });
    const msg = h.message(run.id);
    await h.ledger.attempts.claim(msg, 'w', 60_000);
    await h.ledger.attempts.finalise(msg, 'w', 'genuine_failure', 'job "test" failed for a real reason');
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.sim.clearFaults();
    h.sim.hookConfig = { url: HOOK, content_type: 'json', insecure_ssl: '0' };
  });

  it('success: every check OK against the stack outputs, with the last decisions, exit 0', async () => {
    h.sim.addDelivery({ guid: randomUUID(), event: 'workflow_run', action: 'completed', statusCode: 202 });
    // Failed 30 h ago: outside the 24 h window, so not reported.
    h.sim.addDelivery({ guid: randomUUID(), event: 'workflow_run', statusCode: 502, deliveredAt: hoursAgo(30) });
    const io = captureIo(appEnv(h.sim.url), aws());
    const code = await status(['--stack', 'Reprise'], io);
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    const out = io.out();
    expect(out).toMatch(new RegExp(`^OK +webhook URL +${HOOK}$`, 'm'));
    expect(out).toMatch(/^OK +installations +acme \(all repositories\)$/m);
    expect(out).toMatch(/^OK +deliveries +1 in the last 24 h, none lost$/m);
    expect(out).toMatch(/^OK +rate limit +requests left this hour: acme \d+\/5000$/m);
    expect(out).toMatch(/^OK +decisions +last 1 from DynamoDB table reprise-test:$/m);
    expect(out).toContain('acme/status#');
    expect(out).toContain('genuine_failure: job "test" failed for a real reason');
    expect(out).toContain('All checks passed.');
    // The rate limit was read with an installation token, not the App's JWT.
    expect(h.sim.count('POST', new RegExp(`/app/installations/${INSTALLATION_ID}/access_tokens$`))).toBeGreaterThan(0);
  });

  it('warns, without failing, when an installation lacks what putting a pull request back in the merge queue needs', async () => {
    const io = captureIo(appEnv(h.sim.url), aws());
    expect(await status(['--webhook-url', HOOK, '--json'], io)).toBe(0);
    const report = JSON.parse(io.out()) as { checks: { name: string; status: string; detail: string; fix?: string }[] };
    const mq = report.checks.find((c) => c.name === 'merge queue');
    // The simulator's installation has contents: read and pull_requests: read, no merge_queues.
    expect(mq).toMatchObject({ status: 'warn' });
    expect(mq?.detail).toMatch(/acme lacks pull_requests: write, contents: write, merge_queues: write/);
    expect(mq?.fix).toMatch(/merge_queue: rerun/);

    h.sim.addInstallation({
      id: INSTALLATION_ID,
      account: 'acme',
      permissions: { ...MERGE_QUEUE_PERMISSIONS },
    });
    const again = captureIo(appEnv(h.sim.url), aws());
    expect(await status(['--webhook-url', HOOK], again)).toBe(0);
    expect(again.out()).toMatch(/^OK +merge queue +every installation grants what enqueuePullRequest needs/m);
  });

  it('failure: a wrong webhook URL and a lost delivery each say what is wrong and the fix, exit 1', async () => {
    h.sim.hookConfig = { url: 'https://old.example.com/webhook', content_type: 'json', insecure_ssl: '0' };
    const lost = randomUUID();
    const recovered = randomUUID();
    h.sim.addDelivery({
      guid: lost,
      event: 'workflow_run',
      action: 'completed',
      statusCode: 502,
      deliveredAt: hoursAgo(2),
    });
    h.sim.addDelivery({ guid: recovered, event: 'workflow_run', statusCode: 0, deliveredAt: hoursAgo(3) });
    h.sim.addDelivery({
      guid: recovered,
      event: 'workflow_run',
      statusCode: 202,
      deliveredAt: hoursAgo(1),
      redelivery: true,
    });
    const io = captureIo(appEnv(h.sim.url), aws());
    expect(await status(['--webhook-url', HOOK, '--json'], io)).toBe(1);
    const report = JSON.parse(io.out()) as {
      ok: boolean;
      checks: { name: string; status: string; detail: string; fix?: string }[];
    };
    expect(report.ok).toBe(false);
    const byName = Object.fromEntries(report.checks.map((c) => [c.name, c]));
    expect(byName['webhook URL']).toMatchObject({ status: 'fail' });
    expect(byName['webhook URL']?.detail).toContain(
      `sends webhooks to https://old.example.com/webhook, but the deployed URL is ${HOOK}`,
    );
    expect(byName['webhook URL']?.fix).toContain(
      `set the Webhook URL to ${HOOK} in the App settings (https://github.com/organizations/acme/settings/apps/reprise), under Webhook`,
    );
    expect(byName.deliveries).toMatchObject({ status: 'fail' });
    expect(byName.deliveries?.detail).toContain(lost);
    expect(byName.deliveries?.detail).not.toContain(recovered);
    expect(byName.deliveries?.detail).toContain('1 failed then redelivered');
    expect(byName.deliveries?.fix).toContain(`reprise replay ${lost}`);
    expect(byName.installations?.status).toBe('ok');
    expect(byName.decisions).toMatchObject({ status: 'skip' });
  });

  it('failure: no installation, and an installation short of a permission, each fail with the fix', async () => {
    const io = captureIo(appEnv(h.sim.url));
    h.sim.addInstallation({ id: 9001, account: 'umbrella', permissions: { actions: 'read', metadata: 'read' } });
    expect(await status([], io)).toBe(1);
    expect(io.out()).toMatch(
      /^FAIL +installations +.*umbrella lacks actions: write, checks: read, contents: read, pull_requests: read/m,
    );
    expect(io.out()).toMatch(/fix: an owner of umbrella accepts the App's permissions at /);
    expect(io.out()).toMatch(/^SKIP +webhook URL/m);
  });

  it('says when an installation lacks the checks: write that report: check_run needs (REPORT or --report), and not with report: log', async () => {
    h.sim.addInstallation({
      id: 9002,
      account: 'initech',
      permissions: { actions: 'write', checks: 'read', contents: 'read', metadata: 'read', pull_requests: 'read' },
    });
    const line =
      /^FAIL +installations +.*initech lacks checks: write \(report: check_run needs it to create check runs\)/m;
    const fromEnv = captureIo({ ...appEnv(h.sim.url), REPORT: 'check_run' });
    expect(await status(['--webhook-url', HOOK], fromEnv)).toBe(1);
    expect(fromEnv.out()).toMatch(line);
    expect(fromEnv.out()).toMatch(/an owner of initech accepts the App's permissions at /);
    const fromFlag = captureIo(appEnv(h.sim.url));
    expect(await status(['--webhook-url', HOOK, '--report', 'check_run'], fromFlag)).toBe(1);
    expect(fromFlag.out()).toMatch(line);
    const log = captureIo(appEnv(h.sim.url));
    await status(['--webhook-url', HOOK], log);
    expect(log.out()).not.toMatch(/initech lacks checks/);
    const bad = captureIo(appEnv(h.sim.url));
    expect(await status(['--report', 'checks'], bad)).toBe(2);
    expect(bad.err()).toMatch(/--report: expected check_run or log/);
  });

  it('bad credentials: GitHub refusing the App JWT is one clear message, exit 1', async () => {
    h.sim.injectFault({
      method: 'GET',
      path: /^\/app$/,
      status: 401,
      message: 'A JSON web token could not be decoded',
    });
    const io = captureIo(appEnv(h.sim.url));
    expect(await status([], io)).toBe(1);
    expect(io.err()).toContain(
      `reprise status: GitHub refused the credentials (401 A JSON web token could not be decoded) for GET ${h.sim.url}/app`,
    );
    expect(io.err()).toContain('Check APP_ID and PRIVATE_KEY');
    // Only the host it talked to, said before the first request.
    expect(io.out()).toBe(`GitHub host: ${new URL(h.sim.url).host} (${h.sim.url})\n`);
  });

  it.each([
    [{ APP_ID: '1234567', PRIVATE_KEY: 'not a key' }, 'PRIVATE_KEY is not a PEM private key'],
    [{ GITHUB_TOKEN: 'ghp_x' }, "this command needs the App's credentials"],
    [{ APP_ID: '1234567' }, 'APP_ID is set but PRIVATE_KEY or PRIVATE_KEY_PATH is missing'],
    [
      { APP_ID: '1234567', PRIVATE_KEY_PATH: '/nonexistent/key.pem' },
      'PRIVATE_KEY_PATH: cannot read /nonexistent/key.pem',
    ],
  ])('bad credentials %j → "%s", exit 1, no request sent', async (env, message) => {
    const before = h.sim.requests.length;
    const io = captureIo({ ...env, GITHUB_API_URL: h.sim.url });
    expect(await status([], io)).toBe(1);
    expect(io.err()).toContain(message);
    expect(h.sim.requests.length).toBe(before);
  });
});
