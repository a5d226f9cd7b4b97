/**
 * Inert text everywhere. Job, runner and workflow names and annotation messages are written by
 * whoever's workflow ran; reprise shows them in check runs (Markdown with HTML, GitHub-flavoured)
 * and in the terminal. Each field carries each item of a hostile corpus and is shown as text:
 * no tag, heading, link, table row or escape sequence of its own, within GitHub's field limits.
 * Check runs are rendered with micromark and its GFM extension, raw HTML allowed, as GitHub's
 * renderer takes it before sanitising. The fields' own rows are in test/github/report.test.ts
 * and test/util/inert-text.test.ts; here the whole path, webhook to check run and terminal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decisions } from '../../lib/cli/decisions.js';
import { report } from '../../lib/cli/report.js';
import { captureIo } from '../cli/support.js';
import { OUTPUT_MAX_CHARS } from '../sim/routes-checks.js';
import { exitAnnotation, failureAnnotation, TEXT } from '../support/evidence.js';
import { CONTROLS, CORPUS, ESC, FORBIDDEN, render } from '../support/hostile-text.js';
import { type LocalSetup, startLocal } from '../support/local.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';

describe('end to end: a hostile workflow’s check run and the terminal', () => {
  let local: LocalSetup;
  const SECRET = 'inert-secret';
  const heading = CORPUS.heading;
  let runId: number;

  beforeAll(async () => {
    local = await startLocal({ secret: SECRET });
    const { sim, rt } = local;
    sim.setRepoFile('acme/inert', '.github/reprise.yml', 'report: check_run\n');
    const jobs = Object.values(CORPUS).map((text, i) => ({
      name: `${i} ${text}`,
      conclusion: 'failure' as const,
      runnerName: `${i} ${text}`,
      annotations: [failureAnnotation(`${TEXT.selfHostedUnnamed} ${text}`)],
    }));
    // The job that makes it genuine is named like reprise's own all-clear.
    jobs.unshift({
      name: heading,
      conclusion: 'failure',
      runnerName: `${ESC}[31mr${ESC}[0m`,
      annotations: [exitAnnotation(1)],
    });
    const run = sim.addRun({ repo: 'acme/inert', workflowName: `${ESC}]0;owned\u0007 <b>ci</b>`, jobs });
    runId = run.id;
    const d = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, run.id));
    expect((await post(`${rt.url}/webhook`, d)).status).toBe(202);
    await rt.poller.drain(15_000);
  });
  afterAll(async () => local?.close());

  it('a job named "## ✅ reprise: all jobs verified safe" injects no heading into the genuine_failure check run, and every field GitHub takes is within 65,535 characters', () => {
    const check = local.sim.checkRuns.find((c) => c.repo === 'acme/inert' && c.name === 'reprise');
    expect(check?.output.title).toBe('reprise: genuine_failure');
    const summary = render(check!.output.summary!);
    expect(summary).not.toMatch(FORBIDDEN);
    expect(summary).toContain('## ✅ reprise: all jobs verified safe');
    const text = render(check!.output.text!);
    expect(text).not.toMatch(FORBIDDEN);
    expect(text.match(/<table>/g)).toHaveLength(1);
    expect(check!.output.summary!.length).toBeLessThanOrEqual(OUTPUT_MAX_CHARS);
    expect(check!.output.text!.length).toBeLessThanOrEqual(OUTPUT_MAX_CHARS);
  });

  it('reprise decisions and reprise report print no control character or escape sequence from job, runner or workflow names', async () => {
    const env = { REPRISE_ADMIN_TOKEN: local.rt.adminToken };
    const listed = captureIo(env);
    expect(await decisions(['--local', local.rt.adminUrl], listed)).toBe(0);
    expect(listed.out()).toMatch(new RegExp(`acme/inert +${runId} +1 +genuine_failure`));
    expect(listed.out()).not.toMatch(CONTROLS);

    const reported = captureIo(env);
    expect(await report(['--local', local.rt.adminUrl, '--since', '1d'], reported)).toBe(0);
    expect(reported.out()).not.toMatch(CONTROLS);
    expect(reported.err()).not.toMatch(CONTROLS);
  });
});
