import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { report } from '../../lib/cli/report.js';
import { type Report, summarise } from '../../lib/cli/report-data.js';
import { type Ledger, openLedger } from '../../lib/ledger/ledger.js';
import type { RerunOutcomes } from '../../lib/ledger/outcomes.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import { createEc2SignalHandler } from '../../lib/intake/record-ec2-signal.js';
import type { DescribeInstance } from '../../lib/signals/runner-identities.js';
import { createIntake } from '../../lib/intake/webhook-intake.js';
import type { SimJobSpec } from '../sim/index.js';
import { drawnCharts, overflowingSections } from '../support/page-charts.js';
import { exitAnnotation, lostAnnotation } from '../support/evidence.js';
import { type Harness, INSTALLATION_ID, startHarness, TABLE } from '../support/harness.js';
import { type LocalSetup, startLocal } from '../support/local.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';
import { spotInterruptionWarning, rebalanceRecommendation, stateChange } from '../signals/fixtures.js';
import { captureIo } from './support.js';
import { unpaced } from '../support/fakes/unpaced.js';

/** The docs' screenshot is refreshed on request (WRITE_SCREENSHOTS=1); a plain run leaves the checkout as it was. */
const screenshotPath = (name: string): string =>
  process.env.WRITE_SCREENSHOTS === '1'
    ? join(process.cwd(), 'docs', name)
    : join(tmpdir(), `reprise-${process.pid}-${name}`);

const SECRET = 'report-secret';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The report's "now": every decision, outcome and signal is placed before it by the test's clock. */
const T0 = Date.parse('2026-10-09T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

let h: Harness;
let clock = T0;
let ledger: Ledger;
let outcomes: RerunOutcomes;

/** A job lost to infrastructure that ran `minutes` on its runner before it was lost. */
const lost = (name: string, minutes: number, at: number): SimJobSpec => ({
  name,
  conclusion: 'failure',
  annotations: [lostAnnotation('r')],
  startedAt: iso(at - minutes * MINUTE),
  completedAt: iso(at),
});

const worker = () =>
  h.worker({
    // Text evidence may re-run twice, so a run lost on every attempt is re-run twice.
    defaults: { textOnlyMaxAttempts: 3 },
    ledger,
    outcomes,
    pacing: unpaced(() => clock),
    now: () => clock,
  });

/** The worker decides the run's latest attempt at `at` on the test's clock. */
async function decideAt(runId: number, at: number) {
  clock = at;
  await worker()(h.sqsEvent([h.message(runId)]));
}

/** The intake as deployed receives the run's latest attempt (a green re-run records its outcome). */
async function deliverAt(runId: number, at: number) {
  clock = at;
  const intake = createIntake({
    secrets: async () => [SECRET],
    deliveries: h.ledger.deliveries,
    queue: embeddedRunQueue(new EmbeddedFifoQueue({ name: 'report-test.fifo' })),
    outcomes,
    log: h.log,
    metrics: h.metrics,
  });
  const d = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(h.sim, runId, INSTALLATION_ID));
  return intake({ method: 'POST', path: '/webhook', headers: d.headers, body: Buffer.from(d.body) });
}

const placements: Record<string, { instanceType: string; availabilityZone: string }> = {
  'i-0aaaaaaaaaaaaaaa1': { instanceType: 'm7i.large', availabilityZone: 'us-east-2a' },
  'i-0aaaaaaaaaaaaaaa2': { instanceType: 'm7i.large', availabilityZone: 'us-east-2b' },
  'i-0aaaaaaaaaaaaaaa3': { instanceType: 'c6a.xlarge', availabilityZone: 'us-east-2a' },
  'i-0aaaaaaaaaaaaaaa4': { instanceType: 'r6i.large', availabilityZone: 'us-east-2c' },
};
/** DescribeInstances as EC2 answers it for the fleet: a runner-name tag, the type and the zone. */
const describe_: DescribeInstance = async (id) =>
  placements[id] && { tags: { 'ghr:runner-name': `runner-${id.slice(-1)}` }, ...placements[id] };

async function signal(event: ReturnType<typeof spotInterruptionWarning>) {
  const handle = createEc2SignalHandler({
    store: h.signals,
    describe: describe_,
    tagKeys: ['ghr:runner-name'],
    log: h.log,
    metrics: h.metrics,
  });
  expect((await handle(event)).recorded).toBeGreaterThan(0);
}

const run = (repo: string, workflowName: string, jobs: SimJobSpec[], onRerun: 'success' | 'same' = 'success') =>
  h.sim.addRun({ repo, workflowName, jobs, onRerun });

beforeAll(async () => {
  h = await startHarness();
  ledger = openLedger(h.dynamo.client, TABLE, () => clock);
  outcomes = ledger.outcomes({ minOutcomes: 0, windowMs: HOUR, lostShare: 1, coolDownMs: HOUR });

  // acme/web "CI": 42 minutes lost three days ago; the re-run went green.
  const a = run('acme/web', 'CI', [{ name: 'build', conclusion: 'success' }, lost('test', 42, T0 - 3 * DAY)]);
  await decideAt(a.id, T0 - 3 * DAY + MINUTE);
  expect(await deliverAt(a.id, T0 - 3 * DAY + HOUR)).toMatchObject({ body: { reason: 'outcome recorded: recovered' } });

  // acme/web "Nightly": 30 minutes lost two days ago, its re-run lost again after 15; re-run once more, not back yet.
  const b = h.sim.addRun({
    repo: 'acme/web',
    workflowName: 'Nightly',
    jobs: [lost('e2e', 30, T0 - 2 * DAY)],
    onRerun: (job) => ({ ...lost(job.name, 15, T0 - 2 * DAY + 50 * MINUTE) }),
  });
  await decideAt(b.id, T0 - 2 * DAY + MINUTE);
  await decideAt(b.id, T0 - 2 * DAY + HOUR);

  // acme/api "CI": a genuine failure a day ago: decided, nothing lost.
  const c = run('acme/api', 'CI', [{ name: 'test', conclusion: 'failure', annotations: [exitAnnotation(2)] }]);
  await decideAt(c.id, T0 - DAY);

  // acme/api "Deploy": 20 minutes lost six hours ago.
  const e = run('acme/api', 'Deploy', [lost('deploy', 20, T0 - 6 * HOUR)]);
  await decideAt(e.id, T0 - 6 * HOUR + MINUTE);

  // acme/old "CI": 60 minutes lost ten days ago, outside the default week.
  const d = run('acme/old', 'CI', [lost('test', 60, T0 - 10 * DAY)]);
  await decideAt(d.id, T0 - 10 * DAY + MINUTE);

  // Spot interruption warnings: two m7i.large in two zones, one c6a.xlarge whose state change
  // follows (one interruption, not two), a rebalance (not an interruption), one ten days old.
  await signal(spotInterruptionWarning(iso(T0 - 3 * DAY), 'i-0aaaaaaaaaaaaaaa1'));
  await signal(spotInterruptionWarning(iso(T0 - 2 * DAY), 'i-0aaaaaaaaaaaaaaa2'));
  await signal(spotInterruptionWarning(iso(T0 - 20 * HOUR), 'i-0aaaaaaaaaaaaaaa3'));
  await signal({
    ...stateChange('terminated', iso(T0 - 20 * HOUR + 2 * MINUTE)),
    detail: { 'instance-id': 'i-0aaaaaaaaaaaaaaa3', state: 'terminated' },
  });
  await signal({ ...rebalanceRecommendation(iso(T0 - 5 * HOUR)), detail: { 'instance-id': 'i-0aaaaaaaaaaaaaaa4' } });
  await signal(spotInterruptionWarning(iso(T0 - 10 * DAY), 'i-0aaaaaaaaaaaaaaa4'));
  clock = T0;
}, 120_000);
afterAll(async () => h?.close());

/** `reprise report` against the harness's table, at T0. */
async function reprise(...args: string[]) {
  const io = { ...captureIo({}, { dynamodb: h.dynamo.client }), now: () => T0 };
  const code = await report(['--table', TABLE, ...args], io);
  return { code, out: io.out(), err: io.err() };
}

async function json(...args: string[]): Promise<Report> {
  const r = await reprise('--json', ...args);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as Report;
}

describe('reprise report: the numbers, from a ledger the worker filled', () => {
  it('runs decided by decision, re-runs and their outcomes over the default week', async () => {
    const r = await json();
    expect(r.period).toEqual({ since: iso(T0 - 7 * DAY), until: iso(T0), bucket: 'day' });
    expect(r.decisions).toEqual({
      total: 5,
      byDecision: [
        { name: 'retried', count: 4 },
        { name: 'genuine_failure', count: 1 },
      ],
      deadLettered: 0,
    });
    // acme/web CI recovered; Nightly's first re-run was lost again, its second and Deploy's are not back yet.
    expect(r.reruns).toEqual({
      total: 4,
      outcomes: { recovered: 1, lost_again: 1, failed: 0, cancelled: 0, pending: 2 },
    });
  });

  it("runner minutes lost are the lost jobs' own running times, and their cost at the given price", async () => {
    const week = await json();
    expect(week.lost).toEqual({ jobs: 4, jobsWithoutTimes: 0, minutes: 107, pricePerMinute: 0.008, cost: 0.86 });
    expect((await json('--price-per-minute', '0.05')).lost).toMatchObject({ minutes: 107, cost: 5.35 });
    const byDay = Object.fromEntries(week.overTime.filter((p) => p.minutes > 0).map((p) => [p.start, p.minutes]));
    expect(byDay).toEqual({
      [iso(T0 - 3 * DAY - 12 * HOUR)]: 42,
      [iso(T0 - 2 * DAY - 12 * HOUR)]: 45,
      [iso(T0 - 12 * HOUR)]: 20,
    });
    expect(week.overTime).toHaveLength(8);
  });

  it('the repositories and workflows losing the most minutes', async () => {
    const r = await json();
    expect(r.topRepositories).toEqual([
      { name: 'acme/web', minutes: 87, jobs: 3 },
      { name: 'acme/api', minutes: 20, jobs: 1 },
    ]);
    expect(r.topWorkflows.map((w) => [w.repository, w.workflow, w.minutes, w.jobs])).toEqual([
      ['acme/web', 'Nightly', 45, 2],
      ['acme/web', 'CI', 42, 1],
      ['acme/api', 'Deploy', 20, 1],
    ]);
    expect((await json('--top', '1')).topWorkflows.map((w) => w.workflow)).toEqual(['Nightly']);
  });

  it('interruptions by instance type and availability zone, one per instance', async () => {
    expect((await json()).interruptions).toEqual({
      total: 3,
      byInstanceType: [
        { name: 'm7i.large', count: 2 },
        { name: 'c6a.xlarge', count: 1 },
      ],
      byZone: [
        { name: 'us-east-2a', count: 2 },
        { name: 'us-east-2b', count: 1 },
      ],
    });
  });

  it('--since 24h, 30d and an ISO date set the period', async () => {
    const day = await json('--since', '24h');
    expect(day.period.bucket).toBe('hour');
    expect(day.decisions.total).toBe(2);
    expect(day.lost).toMatchObject({ jobs: 1, minutes: 20 });
    expect(day.interruptions.total).toBe(1);
    const month = await json('--since', '30d');
    expect(month.lost).toMatchObject({ jobs: 5, minutes: 167 });
    expect(month.topRepositories[0]).toEqual({ name: 'acme/web', minutes: 87, jobs: 3 });
    expect(month.interruptions.byInstanceType).toContainEqual({ name: 'r6i.large', count: 1 });
    const since = await json('--since', iso(T0 - 2 * DAY - 2 * HOUR));
    expect(since.period.since).toBe(iso(T0 - 2 * DAY - 2 * HOUR));
    expect(since.lost).toMatchObject({ jobs: 3, minutes: 65 });
  });
});

describe('reprise report: text, JSON and HTML', () => {
  it('plain text by default: each number with what it means', async () => {
    const { code, out } = await reprise();
    expect(code).toBe(0);
    expect(out).toContain(`reprise report: 2026-10-02 12:00Z to 2026-10-09 12:00Z (DynamoDB table ${TABLE})`);
    expect(out).toMatch(/^Run attempts decided: 5$/m);
    expect(out).toMatch(/^ {2}retried +4$/m);
    expect(out).toMatch(/^Re-runs: 4 \(recovered 50% of those finished\)$/m);
    expect(out).toMatch(/^ {2}lost_again +1$/m);
    expect(out).toMatch(/^ {2}pending +2$/m);
    expect(out).toContain('Runner minutes lost to infrastructure: 107 min over 4 job(s)');
    expect(out).toContain('Estimated cost: $0.86 at $0.008 per minute');
    expect(out).toMatch(/^ {2}m7i\.large +2$/m);
    expect(out).toMatch(/^ {2}us-east-2b +1$/m);
    expect(out).toMatch(/^ {2}acme\/web +87 +3$/m);
    expect(out).toMatch(/^ {2}acme\/web +Nightly +45 +2$/m);
  });

  it('--html FILE writes one self-contained page and still prints the report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reprise-report-'));
    try {
      const file = join(dir, 'report.html');
      const { code, out, err } = await reprise('--html', file, '--json');
      expect(code).toBe(0);
      expect(JSON.parse(out)).toMatchObject({ decisions: { total: 5 } });
      expect(err).toContain(`HTML report written to ${file}`);
      const html = readFileSync(file, 'utf8');
      expect(html).toMatch(/^<!doctype html>/);
      // Nothing from anywhere: no script, no external reference, and a policy that forbids loading any.
      expect(html).not.toMatch(/<script|<link|<img|@import|url\(/i);
      expect(html.match(/(?:src|href)=/g)).toBeNull();
      expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
      // Seven charts; six with text drawn twice, wide and for a phone (the outcomes bar has none).
      expect(html.match(/<svg /g)).toHaveLength(13);
      expect(html.match(/<svg [^>]*class="narrow"/g)).toHaveLength(6);
      expect(html).toContain('acme/web · Nightly');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an empty period reports zeros, and the page says so instead of drawing empty charts', async () => {
    const io = { ...captureIo({}, { dynamodb: h.dynamo.client }), now: () => T0 - 20 * DAY };
    const dir = mkdtempSync(join(tmpdir(), 'reprise-report-'));
    try {
      expect(await report(['--table', TABLE, '--since', '1d', '--html', join(dir, 'r.html')], io)).toBe(0);
      expect(io.out()).toMatch(/^Run attempts decided: 0$/m);
      expect(io.out()).toContain('Runner minutes lost to infrastructure: 0 min over 0 job(s)');
      const html = readFileSync(join(dir, 'r.html'), 'utf8');
      expect(html).not.toContain('<svg');
      expect(html).toContain('No minutes lost in this period.');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('reprise report: bad options are clear errors', () => {
  it.each([
    [['--since', 'last week'], '--since: expected a duration (30m, 2h, 7d) or an ISO date, got "last week"'],
    [['--since', '7w'], '--since: expected a duration (30m, 2h, 7d) or an ISO date, got "7w"'],
    [['--since', '2999-01-01'], '--since: "2999-01-01" is not in the past'],
    [['--price-per-minute', 'cheap'], '--price-per-minute: expected a number ≥ 0 (USD per runner minute), got "cheap"'],
    [['--price-per-minute=-1'], '--price-per-minute: expected a number ≥ 0 (USD per runner minute), got "-1"'],
    [['--top', '0'], '--top: expected a whole number ≥ 1, got "0"'],
    [['--html', ''], '--html: expected a file name'],
    [['--bogus'], "Unknown option '--bogus'"],
  ])('%j is exit 2 naming the option', async (args, message) => {
    const r = await reprise(...args);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`reprise report: ${message}`);
    expect(r.out).toBe('');
  });

  it('no source is exit 2; an unknown table is exit 1 naming it; an unwritable FILE is exit 1', async () => {
    const io = captureIo({});
    expect(await report([], io)).toBe(2);
    expect(io.err()).toContain('reprise report: pass --stack NAME, --table NAME or --local URL');
    const missing = { ...captureIo({}, { dynamodb: h.dynamo.client }), now: () => T0 };
    expect(await report(['--table', 'no-such-table'], missing)).toBe(1);
    expect(missing.err()).toContain('cannot read DynamoDB table no-such-table: not found in AWS');
    const r = await reprise('--html', join(tmpdir(), 'no-such-dir-for-reprise', 'r.html'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/cannot write .*no-such-dir-for-reprise\/r\.html: ENOENT/);
  });
});

describe('reprise report --local', () => {
  let local: LocalSetup;
  beforeAll(async () => {
    local = await startLocal({ secret: SECRET });
    const r = local.sim.addRun({ repo: 'acme/local', jobs: [lost('test', 9, Date.now() - 5 * MINUTE)] });
    const d = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(local.sim, r.id));
    expect((await post(`${local.rt.url}/webhook`, d)).status).toBe(202);
    await local.rt.poller.drain(10_000);
  });
  afterAll(async () => local?.close());

  it("reads the running local runtime's ledger through its admin port", async () => {
    const io = captureIo({ REPRISE_ADMIN_TOKEN: local.rt.adminToken });
    expect(await report(['--local', local.rt.adminUrl, '--since', '1h', '--json'], io)).toBe(0);
    const r = JSON.parse(io.out()) as Report;
    expect(r.decisions.byDecision).toEqual([{ name: 'retried', count: 1 }]);
    expect(r.lost).toMatchObject({ jobs: 1, minutes: 9 });
    expect(r.topRepositories).toEqual([{ name: 'acme/local', minutes: 9, jobs: 1 }]);
    const auth = { authorization: `Bearer ${local.rt.adminToken}` };
    const bad = await fetch(`${local.rt.adminUrl}/report-facts?since=yesterday`, { headers: auth });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'since: expected a whole number, got "yesterday"' });
    expect((await fetch(`${local.rt.adminUrl}/report-facts`, { headers: auth })).status).toBe(400);
  });
});

/** Debian's Chromium, or another Chromium on PATH; CHROMIUM_PATH names one elsewhere. */
function findChromium(): string | undefined {
  const named = process.env.CHROMIUM_PATH;
  if (named && existsSync(named)) return named;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) {
      if (dir && existsSync(join(dir, name))) return join(dir, name);
    }
  }
  return undefined;
}

const chromium = findChromium();
if (!chromium) console.warn('reprise report browser test SKIPPED: no chromium binary found (apt-get install chromium)');

describe.skipIf(!chromium)(
  `reprise report --html in a real browser${chromium ? '' : ' (SKIPPED: no chromium binary found)'}`,
  () => {
    it('renders in headless Chromium with no console errors and no requests, every chart drawn with data; screenshot kept in docs/report.png with WRITE_SCREENSHOTS=1', async () => {
      const puppeteer = (await import('puppeteer-core')).default;
      const dir = mkdtempSync(join(tmpdir(), 'reprise-report-'));
      const file = join(dir, 'report.html');
      expect((await reprise('--html', file)).code).toBe(0);
      const browser = await puppeteer.launch({
        executablePath: chromium,
        headless: true,
        // Root in a container has no user namespace for the sandbox.
        args: ['--no-sandbox', '--disable-gpu', '--font-render-hinting=none'],
      });
      try {
        const page = await browser.newPage();
        const errors: string[] = [];
        const requests: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text());
        });
        page.on('pageerror', (e) => errors.push(String(e)));
        page.on('request', (r) => requests.push(r.url()));
        await page.setViewport({ width: 1100, height: 900, deviceScaleFactor: 1 });
        await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });

        const charts = await page.$$eval('section', (sections) =>
          sections.map((s) => ({
            title: s.querySelector('h2')?.textContent ?? '',
            empty: s.querySelector('.empty') !== null,
            drawn: [...s.querySelectorAll('svg .mark')].filter((m) => {
              const b = m.getBoundingClientRect();
              return b.width > 0 && b.height > 0;
            }).length,
          })),
        );
        expect(charts.map((c) => c.title)).toEqual([
          'Runner minutes lost per day',
          'What became of the re-runs',
          'Decisions',
          'Repositories losing the most minutes',
          'Workflows losing the most minutes',
          'Interruptions by instance type',
          'Interruptions by availability zone',
        ]);
        for (const c of charts) {
          expect(c.empty, c.title).toBe(false);
          expect(c.drawn, c.title).toBeGreaterThan(0);
        }
        // Three days with losses; three outcome shares; two decisions; bars per row.
        expect(charts.map((c) => c.drawn)).toEqual([3, 3, 2, 2, 3, 2, 2]);
        expect(await page.$eval('.cards', (el) => el.textContent)).toContain('107 min');
        expect(errors).toEqual([]);
        expect(requests).toEqual([pathToFileURL(file).href]);

        const png = screenshotPath('report.png');
        await page.screenshot({ path: png as `${string}.png`, fullPage: true });
        expect(readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
      } finally {
        await browser.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }, 60_000);
  },
);

describe.skipIf(!chromium)(
  `reprise report --html at phone width${chromium ? '' : ' (SKIPPED: no chromium binary found)'}`,
  () => {
    it('is readable at 390 px wide: no horizontal overflow, every chart drawn, axis and label text at least 10 px', async () => {
      const puppeteer = (await import('puppeteer-core')).default;
      const dir = mkdtempSync(join(tmpdir(), 'reprise-report-phone-'));
      const file = join(dir, 'report.html');
      expect((await reprise('--html', file)).code).toBe(0);
      const browser = await puppeteer.launch({
        executablePath: chromium,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--font-render-hinting=none'],
      });
      try {
        const page = await browser.newPage();
        await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1, isMobile: true });
        await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
        const scrollWidth = await page.$eval('html', (html) => html.scrollWidth);
        const sectionsOverflowing = await overflowingSections(page);
        const charts = await drawnCharts(page);
        const seen = {
          scrollWidth,
          sectionsOverflowing,
          charts: charts.length,
          marks: charts.map((c) => c.marks),
          texts: charts.flatMap((c) => c.texts),
        };
        expect(seen.scrollWidth).toBeLessThanOrEqual(390);
        expect(seen.sectionsOverflowing).toEqual([]);
        // One drawing per chart is shown: the narrow one, with the same marks as the wide page.
        expect(seen.charts).toBe(7);
        expect(seen.marks).toEqual([3, 3, 2, 2, 3, 2, 2]);
        expect(seen.texts.length).toBeGreaterThan(10);
        for (const t of seen.texts) {
          expect(t.px, `"${t.text}" at ${t.px.toFixed(1)} px`).toBeGreaterThanOrEqual(10);
          expect(t.inside, `"${t.text}" inside its chart`).toBe(true);
        }
      } finally {
        await browser.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }, 60_000);
  },
);

// Last: it adds a decision to the ledger the suites above count.
describe('reprise report: records kept before job times were', () => {
  it('a lost job recorded without start and end times counts as lost, with no minutes, and says so', async () => {
    const msg = h.message(run('acme/legacy', 'CI', [lost('test', 5, T0 - HOUR)]).id);
    clock = T0 - HOUR;
    await ledger.attempts.claim(msg, 'old-worker', 60_000);
    // The details as decisions recorded them before: each job's name, verdict and source only.
    await ledger.attempts.finalise(msg, 'old-worker', 'retried', 'lost', {
      requests: 4,
      jobs: [{ name: 'test', verdict: 'infra', source: 'annotations' }],
    });
    clock = T0;
    const r = summarise(await ledger.report.facts(T0 - 2 * HOUR), {
      sinceMs: T0 - 2 * HOUR,
      untilMs: T0,
      pricePerMinute: 0.008,
      top: 10,
    });
    expect(r.lost).toEqual({ jobs: 1, jobsWithoutTimes: 1, minutes: 0, pricePerMinute: 0.008, cost: 0 });
    expect(r.topWorkflows).toEqual([
      { name: 'acme/legacy · unknown', repository: 'acme/legacy', workflow: 'unknown', minutes: 0, jobs: 1 },
    ]);
    const { out } = await reprise('--since', '2h');
    expect(out).toContain('Runner minutes lost to infrastructure: 0 min over 1 job(s), 1 without times');
  });
});
