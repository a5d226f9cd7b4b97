import type { BacktestClass, ExaminedAttempt } from '../backtest/compare.js';
import type { RequestKind } from '../backtest/requests.js';
import type { BacktestSummary } from '../backtest/summary.js';
import { table } from './io.js';

/** Everything a backtest printed, as `--json` prints it and the page draws it. */
export interface BacktestReport {
  readonly scope: string;
  readonly period: { readonly since: string; readonly until: string };
  readonly signals: string;
  /** False when --max-requests stopped it: `done` of `planned` attempts were looked at. */
  readonly complete: boolean;
  readonly planned: number;
  readonly done: number;
  readonly repositories: number;
  readonly runsListed: number;
  readonly runsExamined: number;
  readonly summary: BacktestSummary;
  readonly requests: { readonly total: number; readonly max?: number; readonly byKind: Record<RequestKind, number> };
  readonly notes: readonly string[];
  readonly attempts: readonly ExaminedAttempt[];
}

/** Each class as the text and the HTML report name it. */
export const CLASS_LABELS: Readonly<Record<BacktestClass, string>> = {
  agreed_rerun: 'agreed re-run',
  reprise_only: 'reprise only',
  people_only: 'people only',
  agreed_leave: 'agreed leave',
};

/** A duration as people say it: 42 s, 17 min, 3.5 h, 2.1 d. */
export function duration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  return `${(ms / 86_400_000).toFixed(1)} d`;
}

const day = (iso: string): string => iso.replace(/:\d{2}(\.\d{3})?Z$/, 'Z').replace('T', ' ');

/** One progress line for a terminal, redrawn in place. */
export function progressBar(done: number, total: number, width = 30): string {
  const share = total === 0 ? 1 : Math.min(1, done / total);
  const filled = Math.round(share * width);
  return `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} attempts`;
}

/** Who re-ran it and how it went, in a few words. */
export function rerunText(a: ExaminedAttempt): string {
  if (!a.rerun) return 'not re-run';
  const who = a.rerun.by ? `${a.rerun.by.login}${a.rerun.by.bot ? ' (bot)' : ''}` : 'someone';
  return `re-run by ${who} after ${duration(a.rerun.delayMs)}: ${a.rerun.conclusion ?? 'unfinished'}`;
}

/** The job and text that decided it: the infra evidence, or the first candidate's. */
export function evidenceText(a: ExaminedAttempt): string {
  const jobs = a.judgement.jobs.filter((j) => j.verdict !== null);
  const shown = jobs.find((j) => j.verdict === 'infra') ?? jobs[0];
  return shown
    ? `${shown.name}: ${shown.verdict} (${shown.source}) ${shown.evidence ?? ''}`.trim()
    : a.judgement.reason;
}

const indent = (s: string): string =>
  s
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');

/** The heading: scope, period, where a budget stopped it, and how much was looked at. */
function headingLines(r: BacktestReport): string[] {
  const out = [`reprise backtest: ${r.scope}, ${day(r.period.since)} to ${day(r.period.until)}`, ''];
  if (!r.complete) {
    out.push(
      `Stopped by --max-requests ${r.requests.max}: ${r.done} of ${r.planned} attempts looked at. ` +
        'Run again with the same --cache FILE to go on from there.',
      '',
    );
  }
  out.push(
    `Repositories: ${r.repositories}   runs listed: ${r.runsListed}   runs with a failed or re-run attempt: ${r.runsExamined}`,
    `Failed attempts examined: ${r.attempts.length}   reprise would re-run: ${r.summary.wouldRerun}`,
    '',
  );
  return out;
}

/** The table of classes and the figures under it: waits saved, people's delay, minutes kept. */
function summaryLines(r: BacktestReport): string[] {
  const s = r.summary;
  const rows = [
    ['agreed_rerun', String(s.classes.agreed_rerun), `reprise would re-run, people did (${s.agreedPassed} passed)`],
    ['reprise_only', String(s.classes.reprise_only), 'reprise would re-run, nobody did'],
    ['people_only', String(s.classes.people_only), 'people re-ran, reprise would not'],
    ['agreed_leave', String(s.classes.agreed_leave), 'neither re-ran'],
  ];
  return [
    indent(table(['CLASS', 'ATTEMPTS', 'MEANING'], rows)),
    '',
    `People's waiting time reprise would have saved: ${duration(s.savedDelayMs)} over ${s.classes.agreed_rerun} re-run(s)`,
    `Median delay before a re-run by people: ${duration(s.medianDelayMs)} (${s.reruns.byPeople} by people, ${s.reruns.byBots} by bots)`,
    `Runner minutes a re-run of failed jobs keeps (passed jobs of those attempts): ${s.runnerMinutesKept} min`,
    `Signals: ${r.signals}`,
    '',
  ];
}

/** Each attempt where reprise and people differ, with why, then the agreed re-runs that waited longest. */
function attemptLines(r: BacktestReport): string[] {
  const out: string[] = [];
  const disagreements = r.attempts.filter((a) => a.class === 'reprise_only' || a.class === 'people_only');
  if (disagreements.length > 0) {
    out.push('Disagreements:');
    for (const a of disagreements) {
      out.push(
        `  ${a.class}  ${a.repository} run ${a.runId} attempt ${a.attempt} (${a.workflow}), ${day(a.completedAt)}`,
        `    ${a.url}`,
        `    reprise: ${a.judgement.wouldRerun ? 'would re-run' : a.judgement.decision}: ${a.judgement.reason.replace(/^would re-run: /, '')}`,
        `    evidence: ${evidenceText(a)}`,
        `    people: ${rerunText(a)}`,
        `    ${a.explain}`,
      );
    }
    out.push('');
  }
  const agreed = r.attempts.filter((a) => a.class === 'agreed_rerun');
  if (agreed.length > 0) {
    out.push('Agreed re-runs (longest waits first):');
    for (const a of [...agreed].sort((x, y) => y.savedDelayMs - x.savedDelayMs).slice(0, 10)) {
      out.push(`  ${a.repository} run ${a.runId} attempt ${a.attempt}: ${rerunText(a)}  ${a.url}`);
    }
    out.push('');
  }
  return out;
}

/** The notes, then the requests sent by kind against the budget. */
function footerLines(r: BacktestReport): string[] {
  const out = r.notes.map((n) => `Note: ${n}`);
  if (r.notes.length > 0) out.push('');
  const kinds = Object.entries(r.requests.byKind)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const budget = r.requests.max === undefined ? '' : ` of ${r.requests.max} allowed`;
  out.push(`GitHub requests: ${r.requests.total}${budget} (${kinds || 'none'})`);
  return out;
}

/** The backtest for a terminal: the summary table, the disagreements, then the costs. */
export function backtestText(r: BacktestReport): string {
  return [...headingLines(r), ...summaryLines(r), ...attemptLines(r), ...footerLines(r)].join('\n');
}
