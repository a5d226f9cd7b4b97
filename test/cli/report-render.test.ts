import { describe, expect, it } from 'vitest';
import type { Report } from '../../lib/cli/report-data.js';
import { page } from '../../lib/cli/report-page.js';
import { barChart, card, esc, reportHtml, reportText, section, svg } from '../../lib/cli/report-render.js';

/** A week's report as summarise builds it. */
const report = (over: Partial<Report> = {}): Report => ({
  period: { since: '2026-11-03T12:00:00.000Z', until: '2026-11-10T12:00:00.000Z', bucket: 'day' },
  decisions: {
    total: 5,
    byDecision: [
      { name: 'retried', count: 3 },
      { name: 'no_infra_evidence', count: 2 },
    ],
    deadLettered: 0,
  },
  reruns: { total: 3, outcomes: { recovered: 1, lost_again: 1, failed: 0, cancelled: 0, pending: 1 } },
  requeued: 0,
  lost: { jobs: 4, jobsWithoutTimes: 0, minutes: 1234.5, pricePerMinute: 0.0125, cost: 15.43 },
  lostByEvidence: [{ name: 'signal', count: 4 }],
  lostByPattern: [],
  overTime: [
    { start: '2026-11-09T00:00:00.000Z', minutes: 0, jobs: 0 },
    { start: '2026-11-10T00:00:00.000Z', minutes: 1234.5, jobs: 4 },
  ],
  interruptions: { total: 0, byInstanceType: [], byZone: [] },
  topRepositories: [{ name: 'acme/web', minutes: 1234.5, jobs: 4 }],
  topWorkflows: [{ name: 'acme/web · CI', repository: 'acme/web', workflow: 'CI', minutes: 1234.5, jobs: 4 }],
  recovery: {
    reruns: 3,
    early: 2,
    p50SecondsToRerun: 31,
    p95SecondsToRerun: 48,
    waitedForGitHubMinutes: 10.2,
    p50WaitedForGitHubSeconds: 612,
  },
  ...over,
});

describe('reportText: the report for a terminal', () => {
  const text = reportText(report(), 'table reprise');

  it('a pause in force heads the report with who paused, why and until when, in text and on the page', () => {
    const paused = report({ pausedNow: ['every repository paused by ops since S, until resumed: <incident>'] });
    expect(reportText(paused, 't').split('\n')[2]).toBe(
      'PAUSED NOW: every repository paused by ops since S, until resumed: <incident>',
    );
    expect(reportHtml(paused, 't')).toContain('re-runs paused now');
    expect(reportHtml(paused, 't')).toContain('&lt;incident&gt;');
    expect(text).not.toContain('PAUSED');
  });

  it('says the period to the minute and where it was read, then each figure with what it means', () => {
    const lines = text.split('\n');
    expect(lines[0]).toBe('reprise report: 2026-11-03 12:00Z to 2026-11-10 12:00Z (table reprise)');
    expect(text).toContain(
      'Run attempts decided: 5\n  DECISION           RUNS\n  retried            3\n  no_infra_evidence  2',
    );
    expect(text).toContain('Re-runs: 3 (recovered 50% of those finished)');
    expect(text).toMatch(/^ {2}pending +1$/m);
    expect(text).toContain('Runner minutes lost to infrastructure: 1,234.5 min over 4 job(s)\n');
    expect(text).toContain('Estimated cost: $15.43 at $0.0125 per minute');
    expect(text).toContain('Lost jobs by evidence: signal 4');
    expect(text).toContain(
      'Time to recovery (from the loss to the accepted re-run, 3 re-run(s) with an exact signal, 2 ended early): p50 31 s, p95 48 s',
    );
    expect(text).toContain(
      'Minutes waited for GitHub to fail lost jobs: 10.2 min (p50 612 s a run): what early_recovery would save',
    );
    expect(text).toMatch(/^ {2}acme\/web +CI +1234\.5 +4$/m);
  });

  it('no interruption: no table of them; none finished: a dash for the share; nothing lost: "none" under each top list', () => {
    expect(text).toContain('Interruptions (spot interruption warnings, one per instance): 0\n\n');
    const empty = reportText(
      report({
        decisions: { total: 0, byDecision: [], deadLettered: 0 },
        reruns: { total: 0, outcomes: { recovered: 0, lost_again: 0, failed: 0, cancelled: 0, pending: 0 } },
        lostByEvidence: [],
        topRepositories: [],
        topWorkflows: [],
      }),
      'x',
    );
    expect(empty).toContain('Run attempts decided: 0\n\n');
    expect(empty).toContain('Re-runs: 0 (recovered — of those finished)');
    expect(empty).toContain('Repositories losing the most minutes:\n  none');
    expect(empty).toContain('Workflows losing the most minutes:\n  none');
    expect(empty).not.toContain('Lost jobs by evidence');
  });

  it('dead-lettered decisions, lost jobs without times and interruptions are said when there are some', () => {
    const t = reportText(
      report({
        decisions: { total: 2, byDecision: [{ name: 'abandoned', count: 2 }], deadLettered: 2 },
        lost: { jobs: 4, jobsWithoutTimes: 1, minutes: 3, pricePerMinute: 0.008, cost: 0.02 },
        interruptions: {
          total: 2,
          byInstanceType: [{ name: 'm7g.large', count: 2 }],
          byZone: [{ name: 'eu-west-1a', count: 2 }],
        },
      }),
      'x',
    );
    expect(t).toContain(
      'Dead-lettered (abandoned after MAX_RECEIVE_COUNT receives): 2; redrive with reprise replay --dead-letters --local',
    );
    expect(t).toContain('over 4 job(s), 1 without times');
    expect(t).toMatch(/^ {2}m7g\.large +2$/m);
    expect(t).toMatch(/^ {2}eu-west-1a +2$/m);
  });
});

describe('reportHtml: one self-contained page', () => {
  it('loads nothing and runs no script: the CSP allows only its inline style', () => {
    const html = reportHtml(report(), 'table reprise');
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    expect(html).not.toMatch(/<script|<link|src=|href=/i);
    expect(html).toContain('<title>reprise report: 2026-11-03 12:00Z to 2026-11-10 12:00Z</title>');
  });

  it('cards for each figure, the merge-queue card only when a pull request was put back', () => {
    const html = reportHtml(report(), 'x');
    expect(html).toContain('<div class="big">1,234.5 min</div><div>runner minutes lost</div>');
    expect(html).toContain(
      '<div class="big">$15.43</div><div>estimated cost</div><div class="muted">at $0.0125 per minute</div>',
    );
    expect(html).toContain('50% recovered of those finished');
    expect(html).not.toContain('back in the merge queue');
    expect(reportHtml(report({ requeued: 2 }), 'x')).toContain(
      '<div class="big">2</div><div>back in the merge queue</div>',
    );
  });

  it('names from GitHub and the table are escaped where they are shown', () => {
    const html = reportHtml(
      report({ topRepositories: [{ name: 'acme/<img src=x onerror=alert(1)>', minutes: 5, jobs: 1 }] }),
      '"><b>table</b>',
    );
    expect(html).not.toContain('<img');
    expect(html).toContain('acme/&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&quot;&gt;&lt;b&gt;table&lt;/b&gt;');
  });

  it('an empty period says so instead of drawing charts; untimed jobs are said in the footer', () => {
    const html = reportHtml(
      report({
        reruns: { total: 0, outcomes: { recovered: 0, lost_again: 0, failed: 0, cancelled: 0, pending: 0 } },
        overTime: [{ start: '2026-11-10T00:00:00.000Z', minutes: 0, jobs: 0 }],
        lost: { jobs: 1, jobsWithoutTimes: 1, minutes: 0, pricePerMinute: 0.008, cost: 0 },
      }),
      'x',
    );
    expect(html).toContain('No minutes lost in this period.');
    expect(html).toContain('No re-runs in this period.');
    expect(html).toContain('1 lost job(s) were recorded without start and end times and count no minutes.');
  });

  it("the outcomes bar splits the page's width by share, one coloured part per outcome that happened", () => {
    const html = reportHtml(report(), 'x');
    expect(html).toContain('<title>recovered: 1 of 3</title>');
    expect(html).toContain('<title>pending: 1 of 3</title>');
    expect(html).not.toContain('<title>failed: 0 of 3</title>');
    expect(html).toMatch(/width="186\.7" height="34" fill="#2da44e"/);
  });
});

describe('the page parts', () => {
  it('esc escapes the five characters HTML gives meaning', () => {
    expect(esc(`<a href="x">Tom's & co</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;Tom&#39;s &amp; co&lt;/a&gt;');
  });

  it('a bar chart draws each non-zero row twice (wide and narrow), labels clipped to fit, the full label in its tooltip', () => {
    const long = 'acme/a-repository-with-a-very-long-name';
    const html = barChart(
      'Top',
      [
        { label: long, value: 10, shown: '10 min' },
        { label: 'zero', value: 0, shown: '0' },
        { label: 'acme/b', value: 5, shown: '5 min' },
      ],
      '#123456',
    );
    expect(html.match(/<svg /g)).toHaveLength(2);
    expect(html).toContain('class="wide"');
    expect(html).toContain('class="narrow"');
    expect(html).toContain(`>${long.slice(0, 29)}…</text>`);
    expect(html).toContain(`>${long.slice(0, 13)}…</text>`);
    expect(html).toContain(`<title>${long}: 10 min</title>`);
    expect(html).not.toContain('zero');
    // The longest bar spans the room between label and value; the half value half of it.
    expect(html).toContain('width="270.0"');
    expect(html).toContain('width="135.0"');
    expect(barChart('Top', [{ label: 'a', value: 0, shown: '0' }], '#000')).toBe(
      '<section><h2>Top</h2><p class="empty">Nothing in this period.</p></section>',
    );
  });

  it('svg, section, card and page escape what they are given', () => {
    expect(svg(10, 20, 'a<b', '')).toBe(
      '<svg role="img" aria-label="a&lt;b" viewBox="0 0 10 20" width="10" height="20" xmlns="http://www.w3.org/2000/svg"></svg>',
    );
    expect(section('<h>', 'body')).toBe('<section><h2>&lt;h&gt;</h2>body</section>');
    expect(card('l', '<v>')).toBe('<div class="card"><div class="big">&lt;v&gt;</div><div>l</div></div>');
    const p = page('T', 'b{}', '<p>x</p>');
    expect(p).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(p).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(p).toContain('<style>b{}</style>');
    expect(p).toContain('<main>\n<p>x</p>\n</main>');
  });
});
