import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LOG_HOSTS } from '../../lib/config/github-settings.js';
import { createClientFactory } from '../../lib/github/client.js';
import { hostAllowed } from '../../lib/github/job-log.js';
import { RepoApi } from '../../lib/github/repo-api.js';
import { GitHubSimulator } from '../sim/index.js';
import { INSTALLATION_ID, testPrivateKey } from '../support/harness.js';
import { MemoryLog } from '../support/memory-log.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';
import { startFaultRuntime, tempDir } from '../support/faults.js';
import { errorLine, TEXT } from '../support/evidence.js';

const WEBHOOK_SECRET = 'whsec-current-7f3a9c2e41d8';
const WEBHOOK_SECRET_PREVIOUS = 'whsec-previous-0b6d5e18a2c4';
const SIGNAL_SECRET = 'sigsec-5c1e8f2a9d7b4036';
const LOST = TEXT.selfHostedNamed('r-1');
const EXIT = 'Process completed with exit code 1.';
const SHUTDOWN = `${errorLine(TEXT.shutdown)}\n`;
const lostJob = {
  name: 'test',
  conclusion: 'failure' as const,
  annotations: [{ level: 'failure' as const, message: LOST }],
};
const genuineJob = {
  name: 'test',
  conclusion: 'failure' as const,
  annotations: [{ level: 'failure' as const, message: EXIT }],
};

/** Every installation token the simulator issued (the simulator keeps them in its model). */
const issuedTokens = (sim: GitHubSimulator): string[] => [
  ...(sim as unknown as { model: { tokens: Map<string, unknown> } }).model.tokens.keys(),
];

/** Where each secret (or a recognisable piece of it) shows up in `text`. */
function leaks(text: string, tokens: readonly string[]): string[] {
  const pemLines = testPrivateKey()
    .split('\n')
    .filter((l) => l.length >= 16 && !l.startsWith('-----'));
  const found: string[] = [];
  const named: [string, string][] = [
    ['WEBHOOK_SECRET', WEBHOOK_SECRET],
    ['WEBHOOK_SECRET_PREVIOUS', WEBHOOK_SECRET_PREVIOUS],
    ['SIGNAL_SECRET', SIGNAL_SECRET],
    ...pemLines.map((l, i): [string, string] => [`private key line ${i + 1}`, l]),
    ...tokens.map((t): [string, string] => ['installation token', t]),
  ];
  for (const [name, value] of named) if (text.includes(value)) found.push(name);
  if (/ghs_[A-Za-z0-9]{36}/.test(text)) found.push('a token-shaped string');
  if (/eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]+/.test(text)) found.push('a JWT');
  if (/PRIVATE KEY/.test(text)) found.push('a PEM header');
  return found;
}

const signalPost = (url: string, headers: Record<string, string>, body: string) =>
  fetch(`${url}/signals`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const signalBody = JSON.stringify({ runners: ['runner-i-0abc1234def567890'], kind: 'spot-interruption' });

describe('security: no secret in any log line', () => {
  it('the leak scanner finds each kind of secret it looks for', () => {
    const pemLine = testPrivateKey().split('\n')[3]!;
    const samples = [
      WEBHOOK_SECRET,
      SIGNAL_SECRET,
      pemLine,
      `ghs_${'a'.repeat(36)}`,
      'eyJhbGciOiJSUzI1.eyJpYXQiOjE3OTYy.c2ln',
    ];
    for (const s of samples) expect(leaks(JSON.stringify({ error: `x ${s} y` }), []).length).toBeGreaterThan(0);
    expect(leaks('{"message":"decision","decision":"retried"}', [])).toEqual([]);
  });

  it('no secret value (webhook secrets, private key, installation tokens, SIGNAL_SECRET, JWTs) appears in any log line of a representative end-to-end run, debug level included', async () => {
    const sim = await GitHubSimulator.start();
    sim.addInstallation({ id: INSTALLATION_ID, account: 'acme' });
    const f = await startFaultRuntime(sim, {
      env: { WEBHOOK_SECRET, WEBHOOK_SECRET_PREVIOUS, SIGNAL_SECRET },
      deferUnitMs: 20,
    });
    try {
      const url = f.rt.url;
      const send = async (runId: number, secret: string, installationId = INSTALLATION_ID) =>
        post(
          `${url}/webhook`,
          await signedDelivery(secret, 'workflow_run', workflowRunPayload(sim, runId, installationId)),
        );
      const lost = sim.addRun({ repo: 'acme/secure', jobs: [lostJob] });
      const genuine = sim.addRun({ repo: 'acme/secure', jobs: [genuineJob] });
      const inLog = sim.addRun({
        repo: 'acme/secure',
        jobs: [{ name: 't', conclusion: 'failure', annotations: [], log: SHUTDOWN }],
      });
      const flaky = sim.addRun({ repo: 'acme/secure', jobs: [lostJob] });
      const stranger = sim.addRun({ repo: 'acme/secure', jobs: [lostJob] });
      // Error paths log the most: a retried 5xx, a rate limit, an unknown installation.
      sim.injectFault({ path: new RegExp(`/runs/${flaky.id}/jobs`), status: 502, times: 6 });
      sim.injectFault({
        path: new RegExp(`/runs/${flaky.id}/jobs`),
        status: 403,
        retryAfter: 1,
        message: 'You have exceeded a secondary rate limit',
        times: 2,
      });
      const answers = [
        await send(lost.id, WEBHOOK_SECRET),
        await send(genuine.id, WEBHOOK_SECRET_PREVIOUS),
        await send(inLog.id, WEBHOOK_SECRET),
        await send(flaky.id, WEBHOOK_SECRET),
        await send(stranger.id, WEBHOOK_SECRET, 999_999),
        await send(lost.id, 'an attacker guess'),
      ].map((a) => a.status);
      expect(answers).toEqual([202, 202, 202, 202, 202, 401]);
      const sig = `sha256=${createHmac('sha256', SIGNAL_SECRET).update(signalBody).digest('hex')}`;
      const signals = [
        (await signalPost(url, { authorization: `Bearer ${SIGNAL_SECRET}` }, signalBody)).status,
        (await signalPost(url, { 'x-reprise-signature-256': sig }, signalBody)).status,
        (await signalPost(url, { authorization: 'Bearer wrong' }, signalBody)).status,
      ];
      expect(signals[2]).toBe(401);
      await f.rt.poller.drain(20_000);
      await f.rt.reconciler.sweep();

      expect(sim.rerunRequests.map((r) => r.runId).sort()).toEqual([lost.id, inLog.id, flaky.id].sort());
      const messages = new Set(f.log.lines.map((l) => l.message));
      for (const m of ['decision', 'webhook signature rejected', 'message failed; it will be retried']) {
        expect(messages).toContain(m);
      }
      expect(f.log.named('message dropped: permanent fault')).toHaveLength(1);
      const tokens = issuedTokens(sim);
      expect(tokens.length).toBeGreaterThan(0);
      expect(leaks(JSON.stringify(f.log.lines), tokens)).toEqual([]);
    } finally {
      await f.close();
      await sim.close();
    }
  }, 30_000);

  describe('npm start (lib/local/main.ts) in a child process, Powertools Logger at DEBUG', () => {
    let sim: GitHubSimulator;
    let child: ChildProcess | undefined;
    const dir = tempDir('reprise-env-');
    let stdout = '';
    let stderr = '';
    beforeAll(async () => {
      sim = await GitHubSimulator.start();
      sim.addInstallation({ id: INSTALLATION_ID, account: 'acme' });
    });
    afterAll(async () => {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      await sim?.close();
      dir.remove();
    });

    const waitFor = async (what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> => {
      const until = Date.now() + timeoutMs;
      while (!ok()) {
        if (child?.exitCode !== null) throw new Error(`the runtime exited (${child?.exitCode}): ${stderr}`);
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}; stdout: ${stdout.slice(-2000)}`);
        await sleep(20);
      }
    };

    it('no secret value appears on its stdout or stderr across webhooks, signals, decisions and reconcile sweeps', async () => {
      const envFile = join(dir.path, '.env');
      writeFileSync(
        envFile,
        [
          'APP_ID=1234567',
          // One line with \n escapes, as a .env file holds a PEM.
          `PRIVATE_KEY="${testPrivateKey().trim().replace(/\n/g, '\\n')}"`,
          `WEBHOOK_SECRET=${WEBHOOK_SECRET}`,
          `WEBHOOK_SECRET_PREVIOUS=${WEBHOOK_SECRET_PREVIOUS}`,
          `SIGNAL_SECRET=${SIGNAL_SECRET}`,
          `GITHUB_API_URL=${sim.url}`,
          'LOG_HOSTS=127.0.0.1',
          'RECONCILE_INTERVAL_SECONDS=1',
          'POWERTOOLS_LOG_LEVEL=DEBUG',
          '',
        ].join('\n'),
      );
      const env = { ...process.env };
      for (const k of ['APP_ID', 'PRIVATE_KEY', 'PRIVATE_KEY_PATH', 'GITHUB_TOKEN', 'WEBHOOK_SECRET', 'SIGNAL_SECRET'])
        delete env[k];
      child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/main.ts', '--port', '0', '--dotenv', envFile], {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
      await waitFor('the runtime to listen', () => /"message":"reprise local runtime listening"/.test(stdout));
      const url = /"url":"(http:\/\/[^"]+)"/.exec(stdout)![1]!;

      const lost = sim.addRun({ repo: 'acme/child', jobs: [lostJob] });
      const genuine = sim.addRun({ repo: 'acme/child', jobs: [genuineJob] });
      sim.injectFault({ path: new RegExp(`/runs/${lost.id}/jobs`), status: 502, times: 2 });
      const webhookAnswers: number[] = [];
      for (const [runId, secret] of [
        [lost.id, WEBHOOK_SECRET],
        [genuine.id, WEBHOOK_SECRET_PREVIOUS],
        [lost.id, 'an attacker guess'],
      ] as const) {
        const d = await signedDelivery(secret, 'workflow_run', workflowRunPayload(sim, runId));
        webhookAnswers.push((await post(`${url}/webhook`, d)).status);
      }
      const signalAnswers = [
        (await signalPost(url, { authorization: `Bearer ${SIGNAL_SECRET}` }, signalBody)).status,
        (await signalPost(url, { authorization: 'Bearer wrong' }, signalBody)).status,
      ];
      // What the scan covers really happened: the signed posts were accepted, the others refused.
      expect(webhookAnswers).toEqual([202, 202, 401]);
      expect(signalAnswers).toEqual([202, 401]);
      await waitFor('both decisions', () => (stdout.match(/"message":"decision"/g) ?? []).length >= 2);
      // A sweep's line, whether it succeeded or not: either is scanned.
      await waitFor('a reconcile sweep', () => /"message":"reconcile sweep/.test(stdout + stderr));
      child.kill('SIGTERM');
      await new Promise((resolve) => child!.once('exit', resolve));

      expect(sim.rerunRequests.map((r) => r.runId)).toEqual([lost.id]);
      expect(stdout + stderr).toContain('webhook signature rejected');
      expect(stdout + stderr).toContain('signal post rejected');
      expect(leaks(stdout + stderr, issuedTokens(sim))).toEqual([]);
    }, 40_000);
  });
});

describe('security: job-log redirects go only to allowed hosts', () => {
  it('the simulator redirecting logs to localhost while LOG_HOSTS=127.0.0.1: refused and never fetched; allowing localhost reads it', async () => {
    const sim = await GitHubSimulator.start({ logHost: 'localhost' });
    sim.addInstallation({ id: INSTALLATION_ID, account: 'acme' });
    const decide = async (logHosts: string) => {
      const f = await startFaultRuntime(sim, { env: { LOG_HOSTS: logHosts } });
      try {
        const run = sim.addRun({
          repo: 'acme/logs',
          jobs: [{ name: 't', conclusion: 'failure', annotations: [], log: SHUTDOWN }],
        });
        sim.resetRequests();
        await f.deliver({ id: run.id, installationId: INSTALLATION_ID }, `logs-${run.id}`);
        await f.rt.poller.drain(10_000);
        return {
          decision: f.log.named('decision').at(-1)?.decision,
          refused: f.log.named('job log redirect refused: host not in the allow-list'),
          fetched: sim.requests.filter((r) => r.path.startsWith('/_logs/')).length,
          reruns: sim.rerunTally(run.id).received,
        };
      } finally {
        await f.close();
      }
    };
    try {
      const refused = await decide('127.0.0.1');
      expect(refused).toMatchObject({ decision: 'genuine_failure', fetched: 0, reruns: 0 });
      expect(refused.refused).toEqual([expect.objectContaining({ host: 'localhost' })]);
      const allowed = await decide('localhost');
      expect(allowed).toMatchObject({ decision: 'retried', refused: [], reruns: 1 });
      expect(allowed.fetched).toBeGreaterThan(0);
    } finally {
      await sim.close();
    }
  });

  it.each([
    ['pipelines.actions.githubusercontent.com', true],
    ['productionresultssa0.blob.core.windows.net', true],
    ['PIPELINES.Actions.GitHubUserContent.com', true],
    ['actions.githubusercontent.com', false],
    ['evilactions.githubusercontent.com', false],
    ['pipelines.actions.githubusercontent.com.attacker.io', false],
    ['blob.core.windows.net.attacker.io', false],
    ['attacker.io', false],
    ['127.0.0.1', false],
  ])('the default allow-list: %s → %s', (host, allowed) => {
    expect(hostAllowed(host, DEFAULT_LOG_HOSTS)).toBe(allowed);
  });

  it('an allowed log host redirecting onward to another host is not followed', async () => {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(`${req.headers.host?.split(':')[0]} ${req.url}`);
      const port = (server.address() as AddressInfo).port;
      if (req.url?.startsWith('/repos/'))
        return void res.writeHead(302, { location: `http://127.0.0.1:${port}/blob` }).end();
      if (req.url === '/blob') return void res.writeHead(302, { location: `http://localhost:${port}/elsewhere` }).end();
      res.writeHead(200).end(SHUTDOWN);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const log = new MemoryLog();
      const port = (server.address() as AddressInfo).port;
      const api = new RepoApi(
        createClientFactory({
          apiUrl: `http://127.0.0.1:${port}`,
          credentials: { kind: 'token', token: 'test-token' },
          log,
        })(null),
        'acme',
        'logs',
        `http://127.0.0.1:${port}/graphql`,
      );
      const evidence = await api.jobLog(1, {
        allowHosts: ['127.0.0.1'],
        windowBytes: 1 << 20,
        log,
      });
      expect(evidence).toBe('unreadable');
      expect(hits.some((h) => h.startsWith('localhost'))).toBe(false);
    } finally {
      server.close();
    }
  });
});

describe('security: bounded memory on job logs', () => {
  it('a log host that ignores Range and streams 512 MB: Buffer memory (peak measured) grows by a bounded amount, not with the body, and the last line is still found', async () => {
    const total = 512 * 1024 * 1024;
    const line = Buffer.from(`2026-10-02T16:15:05.0000000Z ${'ok  example/pkg  0.012s '.repeat(3)}\n`);
    const server = createServer((req, res) => {
      const port = (server.address() as AddressInfo).port;
      if (req.url?.startsWith('/repos/'))
        return void res.writeHead(302, { location: `http://127.0.0.1:${port}/blob` }).end();
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.concat(Array.from({ length: Math.floor(65_536 / line.length) }, () => line));
      let sent = 0;
      const pump = (): void => {
        while (sent < total) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end(SHUTDOWN);
      };
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const api = new RepoApi(
      createClientFactory({
        apiUrl: `http://127.0.0.1:${port}`,
        credentials: { kind: 'token', token: 'test-token' },
        log: new MemoryLog(),
        // What is measured is memory: a loaded machine streaming 512 MB must not time the read out.
        requestTimeoutMs: 120_000,
      })(null),
      'acme',
      'logs',
      `http://127.0.0.1:${port}/graphql`,
    );
    const windowBytes = 1024 * 1024;
    const baseline = process.memoryUsage().arrayBuffers;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)), 2);
    try {
      const evidence = await api.jobLog(1, {
        allowHosts: ['127.0.0.1'],
        windowBytes,
        log: new MemoryLog(),
      });
      expect(evidence).toEqual({ errors: [TEXT.shutdown] });
    } finally {
      clearInterval(sampler);
      server.close();
    }
    // Unreleased garbage included, the growth levels off (≈ 50-60 MB here) whatever the body's size.
    console.log(
      `[reliability] log memory: body=${total} bytes, window=${windowBytes}, peak Buffer growth=${peak - baseline}`,
    );
    expect(peak - baseline).toBeLessThan(total / 4);
  }, 150_000);
});

describe('security: the repository allow-list', () => {
  it('a repository outside REPOSITORY_ALLOW_LIST never gets a re-run; one inside it does', async () => {
    const sim = await GitHubSimulator.start();
    sim.addInstallation({ id: INSTALLATION_ID, account: 'acme' });
    const f = await startFaultRuntime(sim, { env: { REPOSITORY_ALLOW_LIST: 'acme/allowed, acme/also-allowed' } });
    try {
      const repos = ['acme/allowed', 'acme/outside', 'acme/allowed-fork', 'acme/also-allowed', 'acme/allowed.evil'];
      const runs = repos.map((repo) => sim.addRun({ repo, jobs: [lostJob] }));
      for (const run of runs) {
        await f.deliver({ id: run.id, installationId: INSTALLATION_ID }, `allow-${run.id}`);
      }
      await f.rt.poller.drain(10_000);
      const rerun = new Set(sim.rerunRequests.map((r) => r.runId));
      const got = Object.fromEntries(runs.map((run, i) => [repos[i], rerun.has(run.id)]));
      expect(got).toEqual({
        'acme/allowed': true,
        'acme/outside': false,
        'acme/allowed-fork': false,
        'acme/also-allowed': true,
        'acme/allowed.evil': false,
      });
      const outside = f.log.named('decision').filter((l) => !String(l.repository).match(/^acme\/(also-)?allowed$/));
      // One line for each repository outside the list, so the check below cannot pass over none.
      expect(outside.map((l) => l.repository).sort()).toEqual([
        'acme/allowed-fork',
        'acme/allowed.evil',
        'acme/outside',
      ]);
      for (const line of outside) {
        expect(line).toMatchObject({ decision: 'ignored', reason: 'repository is not in the deployment allow-list' });
      }
      // Nothing was asked of GitHub about the runs outside the list beyond the configuration file.
      const outsideIds = runs.filter((_r, i) => !got[repos[i]!]).map((r) => String(r.id));
      expect(sim.requests.filter((r) => outsideIds.some((id) => r.path.includes(id)))).toEqual([]);
    } finally {
      await f.close();
      await sim.close();
    }
  });
});
