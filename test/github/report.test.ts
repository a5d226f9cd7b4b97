import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHECK_RUN_FIELD_MAX,
  jobTableMarkdown,
  reportCheckRun,
  stuckJobMarkdown,
  summaryMarkdown,
} from '../../lib/github/report.js';
import { CONTROLS, CORPUS, FORBIDDEN, render, verdictWith } from '../support/hostile-text.js';
import { failedJob, jobVerdict } from '../support/fixtures.js';
import { type SimRepo, simRepo } from './sim-repo.js';

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

  it('400 jobs with 100,000-character names: the table stays within 65,535 characters and says how many it left out', () => {
    const verdicts = Array.from({ length: 400 }, (_, i) => verdictWith(i, `${i}${'n'.repeat(100_000)}`));
    const table = jobTableMarkdown(verdicts);
    expect(table.length).toBeLessThanOrEqual(CHECK_RUN_FIELD_MAX);
    const rows = render(table).match(/<tr>/g)!.length - 1;
    expect(rows).toBeGreaterThan(10);
    expect(table).toContain(`${400 - rows} more job(s) not shown here`);
  });
});

describe('jobTableMarkdown', () => {
  it('one row per job: name, conclusion, runner, verdict, and the evidence after its source', () => {
    const table = jobTableMarkdown([
      jobVerdict(failedJob({ name: 'unit', runnerName: 'r-1' }), 'genuine', 'logs', { evidence: 'exit 1' }),
    ]);
    expect(table.split('\n')).toEqual([
      '| job | conclusion | runner | verdict | evidence |',
      '|---|---|---|---|---|',
      '| unit | failure | r-1 | genuine | logs: exit 1 |',
    ]);
  });

  it('a smaller cap shows the rows that fit and says how many it left out', () => {
    const verdicts = Array.from({ length: 50 }, (_, i) => jobVerdict(failedJob({ name: `job ${i}` }), 'infra'));
    const table = jobTableMarkdown(verdicts, 1000);
    expect(table.length).toBeLessThanOrEqual(1000);
    const rows = table.split('\n').filter((l) => l.startsWith('| job ') && !l.startsWith('| job |')).length;
    expect(rows).toBeGreaterThan(0);
    expect(table).toContain(`${50 - rows} more job(s) not shown here`);
  });
});

describe('stuckJobMarkdown', () => {
  it('a single row with the attempt, the labels and the reason, each literal', () => {
    const md = stuckJobMarkdown({ name: '<b>deploy</b>', runAttempt: 2, labels: ['self-hosted', 'gpu'] }, 'no runner');
    expect(md.split('\n')[2]).toBe('| \\<b\\>deploy\\</b\\> | 2 | self-hosted, gpu | stuck_queued | no runner |');
    expect(render(md)).not.toMatch(FORBIDDEN);
  });
});

describe('reportCheckRun: the decision as a neutral `reprise` check run on the commit (simulator)', () => {
  let gh: SimRepo;
  beforeAll(async () => {
    gh = await simRepo();
  });
  afterAll(() => gh.close());

  it('sends the title, the literal summary and the job table', async () => {
    const verdict = jobVerdict(failedJob({ name: 'unit' }), 'genuine', 'annotations', { evidence: 'exit 1' });
    await reportCheckRun(gh.api(), 'a'.repeat(40), { decision: 'genuine_failure', reason: '**bold** reason' }, [
      verdict,
    ]);
    const check = gh.sim.checkRuns.find((c) => c.repo === gh.repo && c.headSha === 'a'.repeat(40));
    expect(check).toMatchObject({ name: 'reprise', conclusion: 'neutral', status: 'completed' });
    expect(check!.output).toMatchObject({
      title: 'reprise: genuine_failure',
      summary: '\\*\\*bold\\*\\* reason',
      text: jobTableMarkdown([verdict]),
    });
  });

  it('no job examined: the text says so instead of an empty table', async () => {
    await reportCheckRun(gh.api(), 'b'.repeat(40), { decision: 'ignored', reason: 'off' }, []);
    const check = gh.sim.checkRuns.find((c) => c.repo === gh.repo && c.headSha === 'b'.repeat(40));
    expect(check!.output.text).toBe('No job was examined.');
  });
});
