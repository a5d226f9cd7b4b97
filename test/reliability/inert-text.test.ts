/**
 * Inert text everywhere. Job, runner and workflow names and annotation messages are written by
 * whoever's workflow ran; reprise shows them in check runs (Markdown with HTML, GitHub-flavoured)
 * and in the terminal. Each field carries each item of a hostile corpus and is shown as text:
 * no tag, heading, link, table row or escape sequence of its own, within GitHub's field limits.
 * Check runs are rendered with micromark and its GFM extension, raw HTML allowed, as GitHub's
 * renderer takes it before sanitising.
 */
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decisions } from '../../lib/cli/decisions.js';
import { report } from '../../lib/cli/report.js';
import { CHECK_RUN_FIELD_MAX, jobTableMarkdown, summaryMarkdown } from '../../lib/github/report.js';
import type { JobVerdict } from '../../lib/model.js';
import { inlineMarkdown, stripControls } from '../../lib/util/inert-text.js';
import { captureIo } from '../cli/support.js';
import { OUTPUT_MAX_CHARS } from '../sim/routes-checks.js';
import { exitAnnotation, failureAnnotation, TEXT } from '../support/evidence.js';
import { type LocalSetup, startLocal } from '../support/local.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';

const ESC = '\u001b';
const CORPUS = {
  script: '<script>alert(1)</script>',
  'img onerror': '<img src=x onerror=alert(1)>',
  'raw html block': '<div>\n<b>bold</b>\n</div>',
  heading: '## ✅ reprise: all jobs verified safe',
  'setext heading': 'safe\n===',
  link: '[click here](https://evil.example/login)',
  autolink: 'see https://evil.example/login or www.evil.example or mail@evil.example',
  image: '![x](https://evil.example/pixel.png)',
  table: '| verdict | infra |\n|---|---|\n| forged | row |',
  emphasis: '**bold** _em_ ~~gone~~ `code`',
  list: '- item\n1. item',
  'ANSI colour and cursor': `${ESC}[31mred${ESC}[0m ${ESC}[2J${ESC}[H`,
  'OSC title and hyperlink, BEL': `${ESC}]0;owned\u0007${ESC}]8;;https://evil.example\u0007link${ESC}]8;;\u0007`,
  'C1 CSI and bidi override': '\u009b31mx \u202egnp.exe',
  'a 100,000-character string': 'A'.repeat(100_000),
} as const;

const render = (md: string): string =>
  micromark(md, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });

/** The tags no field may bring: everything reprise's own Markdown never makes. */
const FORBIDDEN = /<(script|img|div|b|h[1-6]|a|em|strong|del|ol|ul|li|hr|pre|code)\b/;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const verdictWith = (i: number, text: string): JobVerdict => ({
  job: {
    id: i,
    nodeId: `CR_${i}`,
    name: text,
    status: 'completed',
    conclusion: 'failure',
    runnerName: text,
    startedAt: null,
    completedAt: null,
    runAttempt: 1,
  },
  verdict: 'genuine',
  source: 'annotations',
  evidence: text,
});

describe('check-run Markdown: every field literal', () => {
  it.each(Object.entries(CORPUS))('%s in every table field and the summary: no markup of its own', (_label, text) => {
    const table = jobTableMarkdown([verdictWith(1, text), verdictWith(2, text)]);
    const html = render(table);
    expect(html).not.toMatch(FORBIDDEN);
    expect(html).not.toMatch(CONTROLS);
    // Exactly reprise's table: a header and one row per job, five cells each.
    expect(html.match(/<table>/g)).toHaveLength(1);
    expect(html.match(/<tr>/g)).toHaveLength(3);
    expect(html.match(/<td>/g)).toHaveLength(10);
    expect(table.length).toBeLessThanOrEqual(CHECK_RUN_FIELD_MAX);

    const summary = summaryMarkdown(`job "${text}" failed for a real reason: ${text}`);
    const shown = render(summary);
    expect(shown).not.toMatch(FORBIDDEN);
    expect(shown).not.toMatch(/<table|<tr/);
    expect(shown.match(/<p>/g)).toHaveLength(1);
    expect(summary.length).toBeLessThanOrEqual(CHECK_RUN_FIELD_MAX);
  });

  it('the text reads as itself: rendered, a short field shows its characters, controls removed', () => {
    for (const text of Object.values(CORPUS).filter((t) => t.length < 1000)) {
      const html = render(inlineMarkdown(text));
      const decoded = html
        .replace(/^<p>|<\/p>\n?$/g, '')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&');
      expect(decoded).toBe(stripControls(text).replace(/\s+/g, ' ').trim());
    }
  });

  it('400 jobs with 100,000-character names: the table stays within 65,535 characters and says how many it left out', () => {
    const verdicts = Array.from({ length: 400 }, (_, i) => verdictWith(i, `${i}${'n'.repeat(100_000)}`));
    const table = jobTableMarkdown(verdicts);
    expect(table.length).toBeLessThanOrEqual(CHECK_RUN_FIELD_MAX);
    const rows = render(table).match(/<tr>/g)!.length - 1;
    expect(rows).toBeGreaterThan(10);
    expect(table).toContain(`${400 - rows} more job(s) not shown here`);
  });
});

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
