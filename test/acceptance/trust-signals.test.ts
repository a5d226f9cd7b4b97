/**
 * Trust boundaries of runner signals, black-box through `npm start` and the GitHub simulator: a
 * signal secret speaks only for its owners (or its runner group), and an HMAC-signed body counts
 * once, while fresh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signalSignature } from '../../lib/intake/signal-auth.js';
import { GitHubSimulator } from '../sim/index.js';
import { startTrustRuntime, type TrustRuntime } from './trust-support.js';

const ACME = 7301;
const MALLORY = 7302;
/** An owner no signal secret speaks for. */
const BYSTANDER = 7303;
/** The single secret, as an existing deployment has it, narrowed to acme's installation. */
const ACME_SECRET = 'sig-acme-3f9b1c';
/** Another agent's secret: a host of mallory's runs jobs anyone in mallory can write. */
const MALLORY_SECRET = 'sig-mallory-88d2e0';
/** The agent of one runner group (its hosts run that group's jobs only), whoever owns the job. */
const GROUP_SECRET = 'sig-group-5c07aa';
const GROUP = 'spot fleet';

let sim: GitHubSimulator;
let rt: TrustRuntime;
let seq = 0;

beforeAll(async () => {
  sim = await GitHubSimulator.start();
  sim.addInstallation({ id: ACME, account: 'acme' });
  sim.addInstallation({ id: MALLORY, account: 'mallory' });
  sim.addInstallation({ id: BYSTANDER, account: 'bystander' });
  rt = await startTrustRuntime(sim, {
    SIGNAL_SECRET: ACME_SECRET,
    SIGNAL_SCOPE: `installation:${ACME}`,
    SIGNAL_SECRETS: `${MALLORY_SECRET} mallory; ${GROUP_SECRET} group:${GROUP}`,
    SIGNAL_TIMESTAMP_TOLERANCE_SECONDS: '300',
  });
}, 90_000);
afterAll(async () => {
  await rt?.stop();
  await sim?.close();
});

const runner = () => `ghr-i-0${(++seq).toString(16).padStart(16, 'a')}`;

/** A run of acme whose one job failed with no text evidence at all: only a signal can make it `infra`. */
function silentRun(runnerName: string, runnerGroup = 'Default', repo = 'acme/app') {
  return sim.addRun({
    repo,
    jobs: [
      {
        name: 'build',
        conclusion: 'failure',
        runnerName,
        runnerGroup,
        annotations: [],
        log: null,
        completedAt: new Date(Date.now() - 30_000).toISOString(),
      },
    ],
  });
}

const postSignal = (headers: Record<string, string>, body: string) =>
  fetch(`${rt.url}/signals`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const bearer = (secret: string, runners: string[]) =>
  postSignal({ authorization: `Bearer ${secret}` }, JSON.stringify({ runners, kind: 'terminated' }));
const hmac = (secret: string, body: string, atSeconds = Math.floor(Date.now() / 1000)) => {
  const ts = String(atSeconds);
  return { 'x-reprise-timestamp': ts, 'x-reprise-signature-256': signalSignature(secret, ts, body) };
};

describe('signals are scoped to their owners (npm start)', () => {
  it("a signal posted with another owner's secret for acme's runner does not earn `infra`; acme's own secret does", async () => {
    const attacked = runner();
    const owned = runner();
    // Mallory's agent names acme's runner; acme's agent names its own.
    expect((await bearer(MALLORY_SECRET, [attacked])).status).toBe(202);
    expect((await bearer(ACME_SECRET, [owned])).status).toBe(202);

    const victim = silentRun(attacked);
    const control = silentRun(owned);
    expect(await rt.deliver(victim.id, ACME)).toBe(202);
    expect(await rt.deliver(control.id, ACME)).toBe(202);
    const [v, c] = await Promise.all([rt.line(victim.id, 'decision'), rt.line(control.id, 'decision')]);

    expect(c).toMatchObject({ decision: 'retried' });
    expect(v.decision).not.toBe('retried');
    expect(sim.rerunRequests.map((r) => r.runId)).toEqual([control.id]);
    const jobs = rt.rt.lines.filter((l) => l.message === 'job' && l.run_id === victim.id);
    expect(jobs.every((j) => j.verdict !== 'infra')).toBe(true);
  });
});

describe('signals are per scope (npm start)', () => {
  it('two scopes posting the same body → both recorded, each counted for its own owners only', async () => {
    const shared = runner();
    // The documented shutdown-hook body, posted first by mallory's agent, then by acme's.
    const first = await bearer(MALLORY_SECRET, [shared]);
    const second = await bearer(ACME_SECRET, [shared]);
    expect([first.status, second.status]).toEqual([202, 202]);
    const [a, b] = (await Promise.all([first.json(), second.json()])) as { recorded: number }[];
    expect([a!.recorded, b!.recorded]).toEqual([1, 1]);

    const acmeRun = silentRun(shared);
    const malloryRun = silentRun(shared, 'Default', 'mallory/app');
    const bystanderRun = silentRun(shared, 'Default', 'bystander/app');
    expect(await rt.deliver(acmeRun.id, ACME)).toBe(202);
    expect(await rt.deliver(malloryRun.id, MALLORY)).toBe(202);
    expect(await rt.deliver(bystanderRun.id, BYSTANDER)).toBe(202);
    const [ac, ma, by] = await Promise.all([
      rt.line(acmeRun.id, 'decision'),
      rt.line(malloryRun.id, 'decision'),
      rt.line(bystanderRun.id, 'decision'),
    ]);

    expect(ac).toMatchObject({ decision: 'retried' });
    expect(ma).toMatchObject({ decision: 'retried' });
    expect(by.decision).not.toBe('retried');
    const reruns = sim.rerunRequests.map((r) => r.runId);
    expect(reruns).toEqual(expect.arrayContaining([acmeRun.id, malloryRun.id]));
    expect(reruns).not.toContain(bystanderRun.id);
    const bystanderJobs = rt.rt.lines.filter((l) => l.message === 'job' && l.run_id === bystanderRun.id);
    expect(bystanderJobs.every((j) => j.verdict !== 'infra')).toBe(true);
  });
});

describe('signals are scoped to a runner group (npm start)', () => {
  it("a group-scoped secret's signal earns `infra` for a job of its group and not for a job of another group", async () => {
    const inGroup = runner();
    const elsewhere = runner();
    // The group's agent names both runners; GitHub's jobs listing says which group each job ran in.
    expect((await bearer(GROUP_SECRET, [inGroup, elsewhere])).status).toBe(202);

    const own = silentRun(inGroup, GROUP);
    const other = silentRun(elsewhere, 'Default');
    expect(sim.workflowJobJson(own.jobs[0]!.id)).toMatchObject({ runner_group_name: GROUP });
    expect(await rt.deliver(own.id, ACME)).toBe(202);
    expect(await rt.deliver(other.id, ACME)).toBe(202);
    const [o, x] = await Promise.all([rt.line(own.id, 'decision'), rt.line(other.id, 'decision')]);

    expect(o).toMatchObject({ decision: 'retried' });
    const ownJobs = rt.rt.lines.filter((l) => l.message === 'job' && l.run_id === own.id);
    expect(ownJobs).toEqual([expect.objectContaining({ verdict: 'infra', source: 'signal' })]);
    expect(x.decision).not.toBe('retried');
    const otherJobs = rt.rt.lines.filter((l) => l.message === 'job' && l.run_id === other.id);
    expect(otherJobs.every((j) => j.verdict !== 'infra')).toBe(true);
    expect(sim.rerunRequests.map((r) => r.runId)).toContain(own.id);
    expect(sim.rerunRequests.map((r) => r.runId)).not.toContain(other.id);
  });
});

describe('a group scope with no owner is warned of (npm start)', () => {
  it('group:<name> alone in SIGNAL_SECRETS is warned of at start: it crosses organisations', () => {
    const warnings = rt.rt.lines.filter((l) => l.level === 'WARN' || l.level === 'warn').map((l) => String(l.message));
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^signal scope group:spot fleet names no owner: .* in every installation, across organisations/,
      ),
    );
  });
});

describe('HMAC signals are fresh (npm start)', () => {
  it('a replayed HMAC body is refused 409 and an old one 401; neither earns a re-run', async () => {
    const replayed = runner();
    const stale = runner();
    const body = JSON.stringify({ runners: [replayed], kind: 'terminated' });
    const headers = hmac(ACME_SECRET, body);
    expect((await postSignal(headers, body)).status).toBe(202);
    const again = await postSignal(headers, body);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toMatch(/already used/);

    const oldBody = JSON.stringify({ runners: [stale], kind: 'terminated' });
    const old = await postSignal(hmac(ACME_SECRET, oldBody, Math.floor(Date.now() / 1000) - 600), oldBody);
    expect(old.status).toBe(401);
    expect(((await old.json()) as { error: string }).error).toMatch(/X-Reprise-Timestamp .* more than 300 s from now/);
    const bare = await postSignal({ 'x-reprise-signature-256': signalSignature(ACME_SECRET, '', oldBody) }, oldBody);
    expect(bare.status).toBe(401);

    // The accepted post counts (its run is re-run); the stale one was never recorded.
    const fresh = silentRun(replayed);
    const refused = silentRun(stale);
    expect(await rt.deliver(fresh.id, ACME)).toBe(202);
    expect(await rt.deliver(refused.id, ACME)).toBe(202);
    const [f, r] = await Promise.all([rt.line(fresh.id, 'decision'), rt.line(refused.id, 'decision')]);
    expect(f).toMatchObject({ decision: 'retried' });
    expect(r.decision).not.toBe('retried');
  });
});
