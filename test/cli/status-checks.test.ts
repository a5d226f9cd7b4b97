import type { EksListing } from '../../lib/ledger/eks-listings.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appClient, credentialsFrom } from '../../lib/cli/github.js';
import type { LedgerSource } from '../../lib/cli/ledger-source.js';
import {
  type AppFacts,
  checkDecisions,
  checkDeliveries,
  checkEksListings,
  checkInstallations,
  checkMergeQueuePermissions,
  checkRateLimit,
  checkWebhook,
  listInstallations,
} from '../../lib/cli/status-checks.js';
import { createClientFactory } from '../../lib/github/client.js';
import type { DecisionRecord } from '../../lib/records.js';
import { GitHubSimulator } from '../sim/index.js';
import { APP_ID, testPrivateKey } from '../support/harness.js';
import { captureIo } from './support.js';

const FACTS: AppFacts = {
  id: 1,
  slug: 'reprise-acme',
  name: 'reprise acme',
  htmlUrl: 'https://github.com/apps/reprise-acme',
  settingsUrl: 'https://github.com/settings/apps/reprise-acme',
};

/** An installation as GET /app/installations lists it. */
const installation = (login: string, permissions: Record<string, string>, over: object = {}) => ({
  id: login.length,
  account: { login },
  repository_selection: 'all',
  permissions,
  html_url: `https://github.com/settings/installations/${login}`,
  ...over,
});
const LEAST = { actions: 'write', checks: 'read', contents: 'read', pull_requests: 'read', metadata: 'read' };

describe('status checks: installations and their permissions', () => {
  it('none: the App receives nothing, and where to install it', () => {
    expect(checkInstallations([], FACTS)).toEqual({
      name: 'installations',
      status: 'fail',
      detail: 'the App is not installed anywhere, so it receives no webhooks',
      fix: 'install it: https://github.com/apps/reprise-acme/installations/new',
    });
  });

  it('every installation granting the least reprise needs is ok, each named with its selection', () => {
    const c = checkInstallations(
      [
        installation('acme', LEAST),
        installation('beta', { ...LEAST, contents: 'write' }, { repository_selection: 'selected' }),
      ],
      FACTS,
    );
    expect(c).toEqual({
      name: 'installations',
      status: 'ok',
      detail: 'acme (all repositories), beta (selected repositories)',
    });
  });

  it('a missing or lesser permission, or a suspension, fails naming the owner, what is lacking and where to accept', () => {
    const c = checkInstallations(
      [
        installation('acme', { ...LEAST, actions: 'read' }),
        installation('beta', LEAST, { suspended_at: '2026-03-01T00:00:00Z' }),
      ],
      FACTS,
    );
    expect(c.status).toBe('fail');
    expect(c.detail).toBe(
      'acme (all repositories), beta (all repositories); acme lacks actions: write; beta is suspended since 2026-03-01T00:00:00Z',
    );
    expect(c.fix).toBe(
      "an owner of acme accepts the App's permissions at https://github.com/settings/installations/acme; unsuspend it at https://github.com/settings/installations/beta",
    );
  });

  it('report: check_run needs checks: write, and says so', () => {
    const c = checkInstallations([installation('acme', LEAST)], FACTS, 'check_run');
    expect(c.status).toBe('fail');
    expect(c.detail).toContain('acme lacks checks: write (report: check_run needs it to create check runs)');
  });

  it('the merge queue: ok when every installation grants what enqueuePullRequest needs; else a warning with both ways out', () => {
    const queue = { ...LEAST, pull_requests: 'write', contents: 'write', merge_queues: 'write' };
    expect(checkMergeQueuePermissions([])).toEqual({ name: 'merge queue', status: 'skip', detail: 'no installation' });
    expect(checkMergeQueuePermissions([installation('acme', queue)])).toMatchObject({ status: 'ok' });
    const c = checkMergeQueuePermissions([installation('acme', queue), installation('beta', LEAST)]);
    expect(c.status).toBe('warn');
    expect(c.detail).toMatch(
      /^beta lacks pull_requests: write, contents: write, merge_queues: write: a pull request ejected/,
    );
    expect(c.fix).toContain('accepts them at https://github.com/settings/installations/beta');
    expect(c.fix).toContain('or set merge_queue: rerun in .github/reprise.yml');
  });
});

describe('status checks: what GitHub says of the App', () => {
  let sim: GitHubSimulator;
  const app = () => {
    const creds = credentialsFrom({ APP_ID, PRIVATE_KEY: testPrivateKey() }, false);
    if (creds.kind !== 'app') throw new Error('expected App credentials');
    return appClient(sim.url, creds, captureIo({}));
  };
  const clients = () =>
    createClientFactory({
      apiUrl: sim.url,
      credentials: { kind: 'app', appId: APP_ID, privateKey: testPrivateKey() },
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
      retryBaseMs: 1,
    });

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
  });
  afterAll(async () => {
    await sim.close();
  });
  beforeEach(() => {
    sim.hookConfig = { url: 'https://reprise.example.com/webhook', content_type: 'json', insecure_ssl: '0' };
  });

  it('the webhook URL: ok when it is the deployed one (a trailing slash aside); skipped with nothing to compare', async () => {
    expect(await checkWebhook(app(), FACTS, 'https://reprise.example.com/webhook/')).toEqual({
      name: 'webhook URL',
      status: 'ok',
      detail: 'https://reprise.example.com/webhook',
    });
    expect(await checkWebhook(app(), FACTS, undefined)).toMatchObject({
      status: 'skip',
      detail: 'https://reprise.example.com/webhook (pass --webhook-url or --stack to compare it with the deployed one)',
    });
  });

  it('another URL, a form content type or SSL verification off: what is wrong and where to fix it', async () => {
    expect(await checkWebhook(app(), FACTS, 'https://other.example.com/webhook')).toEqual({
      name: 'webhook URL',
      status: 'fail',
      detail:
        'the App sends webhooks to https://reprise.example.com/webhook, but the deployed URL is https://other.example.com/webhook',
      fix: `set the Webhook URL to https://other.example.com/webhook in the App settings (${FACTS.settingsUrl}), under Webhook`,
    });
    sim.hookConfig = { ...sim.hookConfig, insecure_ssl: '1' };
    expect(await checkWebhook(app(), FACTS, 'https://reprise.example.com/webhook')).toMatchObject({
      status: 'warn',
      detail: 'https://reprise.example.com/webhook, with SSL verification off',
    });
    sim.hookConfig = { ...sim.hookConfig, content_type: 'form' };
    expect(await checkWebhook(app(), FACTS, undefined)).toMatchObject({
      status: 'fail',
      detail: 'content type is form; the intake reads JSON',
    });
  });

  it('deliveries of the last 24 h: a failure redelivered since is recovered; one that is not is listed with the replay to run', async () => {
    const now = Date.parse('2026-03-10T12:00:00Z');
    const at = (hoursAgo: number) => new Date(now - hoursAgo * 3_600_000).toISOString();
    sim.addDelivery({ guid: 'g-ok', event: 'workflow_run', action: 'completed', statusCode: 202, deliveredAt: at(1) });
    sim.addDelivery({
      guid: 'g-back',
      event: 'workflow_run',
      action: 'completed',
      statusCode: 502,
      deliveredAt: at(3),
    });
    sim.addDelivery({
      guid: 'g-back',
      event: 'workflow_run',
      action: 'completed',
      statusCode: 202,
      deliveredAt: at(2),
      redelivery: true,
    });
    sim.addDelivery({
      guid: 'g-old',
      event: 'workflow_run',
      action: 'completed',
      statusCode: 500,
      deliveredAt: at(30),
    });
    expect(await checkDeliveries(app(), now)).toEqual({
      name: 'deliveries',
      status: 'ok',
      detail: '3 in the last 24 h, none lost, 1 failed then redelivered',
    });
    sim.addDelivery({ guid: 'g-lost', event: 'workflow_job', statusCode: 0, deliveredAt: at(4) });
    const c = await checkDeliveries(app(), now);
    expect(c.status).toBe('fail');
    expect(c.detail).toBe(
      `1 of 4 in the last 24 h failed, 1 failed then redelivered: g-lost workflow_job status timed out at ${at(4)}`,
    );
    expect(c.fix).toBe("check the webhook URL and the intake's logs, then redeliver each: reprise replay g-lost");
  });

  it('the rate limit of each installation: ok with what is left; under a tenth left fails with when it resets', async () => {
    sim.addInstallation({ id: 71, account: 'acme' });
    const listed = (await listInstallations(app())).filter((i) => i.id === 71);
    expect(await checkRateLimit([], (id) => clients()(id))).toMatchObject({ status: 'skip' });
    sim.setRateLimit('core', 5000, 100);
    const ok = await checkRateLimit(listed, (id) => clients()(id));
    expect(ok.status).toBe('ok');
    expect(ok.detail).toMatch(/^requests left this hour: acme \d+\/5000$/);
    sim.setRateLimit('core', 5000, 4900);
    const low = await checkRateLimit(listed, (id) => clients()(id));
    expect(low.status).toBe('fail');
    expect(low.detail).toMatch(/^less than 10% left: acme \d+\/5000$/);
    expect(low.fix).toMatch(/^decisions wait for the reset \(acme until \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z\)/);
  });
});

describe('status checks: the last decisions', () => {
  const record = (runId: number): DecisionRecord =>
    ({
      state: 'decided',
      repository: 'acme/web',
      runId,
      runAttempt: 1,
      decision: 'retried',
      reason: 'lost runner',
      decidedAt: Date.parse('2026-03-10T12:00:00Z'),
    }) as DecisionRecord;
  const source = (list: DecisionRecord[]): LedgerSource & { asked: number[] } => {
    const asked: number[] = [];
    return {
      where: 'DynamoDB table t',
      asked,
      list: async (f) => {
        asked.push(f.limit ?? -1);
        return list;
      },
      facts: async () => ({ decisions: [], outcomes: [], signals: [] }),
      pauses: {
        list: async () => [],
        pause: () => Promise.reject(new Error('not paused here')),
        resume: async () => undefined,
      },
    };
  };

  it('without a source they are skipped, with the options that name one', async () => {
    expect(await checkDecisions(undefined, 5)).toEqual({
      name: 'decisions',
      status: 'skip',
      detail: 'pass --stack, --table or --local to show the last decisions',
    });
  });

  it('the last N, one line each: when, which run attempt, the decision and why', async () => {
    const s = source([record(7), record(8)]);
    expect(await checkDecisions(s, 2)).toEqual({
      name: 'decisions',
      status: 'ok',
      detail:
        'last 2 from DynamoDB table t:\n2026-03-10T12:00:00Z acme/web#7@1 retried: lost runner\n2026-03-10T12:00:00Z acme/web#8@1 retried: lost runner',
    });
    expect(s.asked).toEqual([2]);
    expect(await checkDecisions(source([]), 5)).toMatchObject({ detail: 'none recorded yet in DynamoDB table t' });
  });
});

describe('status checks: the EKS pod listings', () => {
  const at = Date.parse('2026-10-02T16:13:05Z');
  const source = (listings: EksListing[]): LedgerSource => ({
    where: 'DynamoDB table t',
    list: async () => [],
    facts: async () => ({ decisions: [], outcomes: [], signals: [] }),
    pauses: {
      list: async () => [],
      pause: () => Promise.reject(new Error('not paused here')),
      resume: async () => undefined,
    },
    eksListings: async () => listings,
  });

  it('names the cluster whose pods the signal function cannot list, with the cause and the fix', async () => {
    const check = await checkEksListings(
      source([
        { cluster: 'gpu', at, ok: true },
        {
          cluster: 'runners',
          at,
          ok: false,
          cause: '403 pods is forbidden: User "x" cannot list resource "pods"',
          status: 403,
          instanceId: 'i-0aaaaaaaaaaaaaaaa',
        },
      ]),
    );
    expect(check).toMatchObject({
      name: 'EKS pods',
      status: 'fail',
      detail:
        'gpu: listed the runner pods at 2026-10-02T16:13:05Z\n' +
        'the signal function cannot list pods on cluster runners: 403 pods is forbidden: User "x" cannot list resource "pods" (at 2026-10-02T16:13:05Z, for i-0aaaaaaaaaaaaaaaa)',
    });
    expect(check.fix).toMatch(/access entry with AmazonEKSViewPolicy/);
  });

  it('is OK when every cluster answered, and skipped with nothing to show', async () => {
    expect(await checkEksListings(source([{ cluster: 'gpu', at, ok: true }]))).toMatchObject({ status: 'ok' });
    expect(await checkEksListings(source([]))).toMatchObject({ status: 'skip' });
    expect(await checkEksListings(undefined)).toMatchObject({ status: 'skip' });
  });
});
