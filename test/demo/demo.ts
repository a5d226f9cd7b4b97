/**
 * `npm run demo`: the local runtime against the GitHub simulator, fed signed webhooks for
 * the runs platform teams see every day, and a table of what reprise made of each. Then
 * `reprise report` writes its HTML page (`--report FILE`, default a temporary directory).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { report } from '../../lib/cli/report.js';
import type { SimRunSpec } from '../sim/index.js';
import { exitAnnotation, lostAnnotation, lostJob } from '../support/evidence.js';
import { INSTALLATION_ID } from '../support/harness.js';
import { startLocal } from '../support/local.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';
import { MERGE_QUEUE_PERMISSIONS } from '../sim/permissions.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const SECRET = 'demo-webhook-secret';

interface Scenario {
  readonly title: string;
  readonly expect: string;
  readonly run: Omit<SimRunSpec, 'repo'>;
  readonly deliveries?: number;
  /** A merge-group run of this pull request: GitHub removed it from the queue when the run failed. */
  readonly mergeGroupOf?: number;
}

const SCENARIOS: Scenario[] = [
  {
    title: 'one job lost its runner',
    expect: 'retried',
    run: {
      jobs: [{ name: 'build', conclusion: 'success' }, lostJob('test', 'spot-i-0a1b2c3d4e5f60718')],
    },
  },
  {
    title: 'a genuine failure',
    expect: 'genuine_failure',
    run: { jobs: [{ name: 'test', conclusion: 'failure', annotations: [exitAnnotation(1)] }] },
  },
  {
    title: 'a genuine failure beside a lost runner',
    expect: 'genuine_failure',
    run: {
      jobs: [{ name: 'unit', conclusion: 'failure', annotations: [exitAnnotation(1)] }, lostJob('e2e', 'spot-7')],
    },
  },
  {
    title: 'a lost job and its fail-fast cancelled sibling',
    expect: 'retried',
    run: {
      jobs: [
        lostJob('test (1)', 'spot-1'),
        { name: 'test (2)', conclusion: 'cancelled', runnerName: 'spot-2', annotations: [] },
      ],
    },
  },
  {
    title: 'a lost job already at the attempt cap',
    expect: 'attempt_cap',
    run: { runAttempt: 3, jobs: [{ name: 'test', conclusion: 'failure', annotations: [lostAnnotation('spot-9')] }] },
  },
  {
    title: 'a merge-queue run lost its runner',
    expect: 'requeued',
    mergeGroupOf: 42,
    run: { jobs: [{ name: 'build', conclusion: 'success' }, lostJob('test', 'spot-i-0f1e2d3c4b5a69788')] },
  },
  {
    title: 'the same delivery sent twice',
    expect: 'retried + duplicate',
    deliveries: 2,
    run: { jobs: [{ name: 'test', conclusion: 'failure', annotations: [lostAnnotation('spot-4')] }] },
  },
];

/** What a GraphQL call asked for: the annotations, the merge group, or the mutation. */
function graphqlLabel(body: unknown): string {
  const query = String((body as { query?: unknown } | undefined)?.query ?? '');
  if (/\benqueuePullRequest\b/.test(query)) return ' (enqueuePullRequest)';
  if (/\brepository\s*\(/.test(query)) return ' (pull request, group commit)';
  if (/\bnodes\s*\(/.test(query)) return ' (annotations)';
  return '';
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** Minutes a lost job ran before its runner went away, so the report has losses to show. */
const RAN_MINUTES = [42, 17, 25, 8, 31, 23, 12];

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { report: { type: 'string' } } });
  const reportFile = values.report
    ? resolve(values.report)
    : join(mkdtempSync(join(tmpdir(), 'reprise-demo-')), 'report.html');
  const { sim, rt, outcomes, close } = await startLocal({ secret: SECRET, retryBaseMs: 1000 });
  console.log(`reprise demo: local runtime at ${rt.url}, GitHub simulator at ${sim.url}\n`);
  // The App was granted what putting a pull request back in the merge queue needs (reprise setup asks for it).
  sim.addInstallation({
    id: INSTALLATION_ID,
    account: 'acme',
    permissions: { ...MERGE_QUEUE_PERMISSIONS },
  });

  const rows = [['scenario', 'run', 'verdicts', 'decision', 'expected', 'calls on GitHub']];
  let failures = 0;
  for (const [i, s] of SCENARIOS.entries()) {
    const ranFrom = new Date(Date.now() - (RAN_MINUTES[i] ?? 10) * 60_000).toISOString();
    const jobs = s.run.jobs.map((j) => (j.conclusion === 'failure' ? { ...j, startedAt: ranFrom } : j));
    const repo = `acme/service-${i + 1}`;
    const run =
      s.mergeGroupOf === undefined
        ? sim.addRun({ repo, ...s.run, jobs })
        : sim.addMergeGroupRun({ repo, pullRequest: s.mergeGroupOf, ...s.run, jobs }).run;
    sim.resetRequests();
    const delivery = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, run.id, INSTALLATION_ID));
    for (let n = 0; n < (s.deliveries ?? 1); n++) {
      const res = await post(`${rt.url}/webhook`, delivery);
      if (res.status >= 300) throw new Error(`webhook answered ${res.status}: ${JSON.stringify(res.body)}`);
      await rt.poller.drain(15_000);
    }
    const mine = outcomes.filter((o) => o.message.runId === run.id);
    const decisions = mine.map((o) => o.outcome.decision);
    const webhookDuplicates = (s.deliveries ?? 1) - mine.length;
    const shown = [...decisions, ...Array<string>(webhookDuplicates).fill('duplicate')].join(' + ');
    const verdicts = mine.flatMap((o) => o.outcome.verdicts.map((v) => `${v.job.name}=${v.verdict}`)).join(', ') || '-';
    const calls = sim.requests
      .filter((r) => !r.path.includes('access_tokens') && !r.path.startsWith('/_logs'))
      .map(
        (r) =>
          `${r.method} ${r.path.replace(/^\/repos\/[^/]+\/[^/]+/, '').replace(/\/actions\/runs\/\d+/, '/runs/:id')}${graphqlLabel(r.body)}`,
      );
    const ok = shown === s.expect;
    if (!ok) failures++;
    rows.push([
      s.title,
      `#${run.id} attempt ${s.run.runAttempt ?? 1}`,
      verdicts,
      shown,
      ok ? s.expect : `${s.expect} (MISMATCH)`,
      calls.join('; '),
    ]);
  }
  console.log(table(rows));
  const reruns = sim.reruns.length;
  const requeues = sim.enqueueRequests.length;
  console.log(
    `\n${SCENARIOS.length} runs, ${reruns} re-run call(s) made, ${requeues} pull request(s) put back in the merge queue, ${failures} mismatch(es).`,
  );

  // The re-runs' completed attempts come back as webhooks: a green one is recorded as recovered.
  for (const runId of new Set(sim.reruns.map((r) => r.runId))) {
    const d = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, runId, INSTALLATION_ID));
    await post(`${rt.url}/webhook`, d);
  }
  // An attempt that came back red is decided again, and its outcome recorded then.
  const decidedFirst = outcomes.length;
  await rt.poller.drain(15_000);
  const again = outcomes.slice(decidedFirst);
  const redAgain = again.map((o) => `#${o.message.runId} attempt ${o.message.runAttempt}: ${o.outcome.decision}`);
  console.log(
    `The ${reruns} re-run(s) completed and came back as webhooks; ${again.length} ended red and ` +
      `${again.length === 1 ? 'was' : 'were'} decided again${again.length ? ` (${redAgain.join(', ')})` : ''}. ` +
      `The report counts run attempts: ${decidedFirst} + ${again.length} = ${decidedFirst + again.length}.`,
  );
  console.log('');
  const io = { stdout: process.stdout, stderr: process.stderr, env: { REPRISE_ADMIN_TOKEN: rt.adminToken } };
  if ((await report(['--local', rt.adminUrl, '--since', '1h', '--html', reportFile], io)) !== 0) failures++;
  console.log(`\nOpen the report: ${reportFile}`);
  await close();
  if (failures > 0) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
