import type { ExaminedAttempt } from '../backtest/compare.js';
import type { Tally } from '../backtest/summary.js';
import { CLASS_LABELS, type BacktestReport, duration, evidenceText, rerunText } from './backtest-render.js';
import { page, STYLE } from './report-page.js';
import { barChart, card, esc, section, svg } from './report-render.js';

const day = (iso: string): string => iso.replace(/:\d{2}(\.\d{3})?Z$/, 'Z').replace('T', ' ');

/** Re-runs reprise would have made on each day of the period: one column a day. */
function perDayChart(r: BacktestReport): string {
  const title = 'Re-runs reprise would have made, per day';
  const days = r.summary.perDay;
  const max = Math.max(0, ...days.map((d) => d.count));
  if (max === 0) return section(title, '<p class="empty">None in this period.</p>');
  const h = 160;
  const left = 30;
  const bottom = 22;
  const draw = (width: number, kind: 'wide' | 'narrow'): string => {
    const plotW = width - left;
    const step = plotW / days.length;
    const barW = Math.max(1, step * 0.8);
    const y = (v: number) => (h - bottom) * (1 - v / max);
    const cols = days
      .map((d, i) =>
        d.count === 0
          ? ''
          : `<rect class="mark" x="${(left + i * step).toFixed(1)}" y="${y(d.count).toFixed(1)}" width="${barW.toFixed(1)}" height="${(h - bottom - y(d.count)).toFixed(1)}" fill="#2da44e"><title>${esc(d.day)}: ${d.count}</title></rect>`,
      )
      .join('');
    const axis =
      `<line x1="${left}" y1="${h - bottom}" x2="${left + plotW}" y2="${h - bottom}" class="axis"/>` +
      `<text x="${left - 6}" y="10" text-anchor="end" class="value">${max}</text>` +
      `<text x="${left - 6}" y="${h - bottom}" text-anchor="end" class="value">0</text>`;
    const ticks =
      `<text x="${left}" y="${h - 4}" class="label">${esc(days[0]!.day)}</text>` +
      `<text x="${width}" y="${h - 4}" text-anchor="end" class="label">${esc(days[days.length - 1]!.day)}</text>`;
    return svg(width, h, title, axis + cols + ticks, kind);
  };
  return section(title, draw(900, 'wide') + draw(330, 'narrow'));
}

const counts = (t: Tally) => ({ label: t.name, value: t.count, shown: String(t.count) });

function attemptRow(a: ExaminedAttempt): string {
  const who = `${esc(a.repository)} run <a href="${esc(a.url)}">${a.runId}</a> attempt ${a.attempt}`;
  return `<li><b>${esc(CLASS_LABELS[a.class])}</b> · ${who} <span class="muted">(${esc(a.workflow)}, ${esc(day(a.completedAt))})</span>
<div>reprise: ${esc(a.judgement.wouldRerun ? 'would re-run' : a.judgement.decision)}: ${esc(a.judgement.reason.replace(/^would re-run: /, ''))}</div>
<div class="muted">evidence: ${esc(evidenceText(a))}</div>
<div class="muted">people: ${esc(rerunText(a))}</div>
<code>${esc(a.explain)}</code></li>`;
}

const EXTRA_STYLE = `
ul.runs{list-style:none;padding:0;margin:0}ul.runs li{padding:8px 0;border-top:1px solid #d0d7de;overflow-wrap:anywhere}
ul.runs li:first-child{border-top:0}code{font-size:12px;background:#f6f8fa;padding:1px 4px;border-radius:4px}
.warn{background:#fff8c5;border:1px solid #d4a72c;border-radius:8px;padding:10px 14px;margin:0 0 14px}
`;

/** One self-contained page in the report's style: inline CSS and SVG, no script, nothing loaded. */
export function backtestHtml(r: BacktestReport): string {
  const s = r.summary;
  const disagreements = r.attempts.filter((a) => a.class === 'reprise_only' || a.class === 'people_only');
  const cards = [
    card(
      'runs examined',
      String(r.runsExamined),
      `${r.attempts.length} failed attempt(s) of ${r.runsListed} runs listed`,
    ),
    card('re-runs reprise would make', String(s.wouldRerun), `${s.classes.agreed_rerun} that people made too`),
    card(
      'waiting time saved',
      duration(s.savedDelayMs),
      `median wait for a re-run by people: ${duration(s.medianDelayMs)}`,
    ),
    card('runner minutes kept', `${s.runnerMinutesKept} min`, 'passed jobs a re-run of failed jobs does not repeat'),
    card(
      'disagreements',
      String(disagreements.length),
      `${s.classes.reprise_only} reprise only, ${s.classes.people_only} people only`,
    ),
  ].join('');
  const classes = (Object.keys(CLASS_LABELS) as (keyof typeof CLASS_LABELS)[]).map((c) => ({
    label: CLASS_LABELS[c],
    value: s.classes[c],
    shown: String(s.classes[c]),
  }));
  const charts = [
    perDayChart(r),
    `<div class="grid">${barChart('Failed attempts by class', classes, '#57606a')}${barChart(
      'Delay before a re-run by people',
      s.delays.map(counts),
      '#d4762c',
    )}</div>`,
    `<div class="grid">${barChart('Repositories with the most re-runs', s.topRepositories.map(counts), '#cf222e')}${barChart(
      'Workflows with the most re-runs',
      s.topWorkflows.map(counts),
      '#bf3989',
    )}</div>`,
    barChart('Evidence behind the re-runs', s.evidence.map(counts), '#0969da'),
  ].join('');
  const list =
    disagreements.length === 0
      ? '<p class="empty">None: reprise and people agreed on every failed attempt.</p>'
      : `<ul class="runs">${disagreements.map(attemptRow).join('')}</ul>`;
  const stopped = r.complete
    ? ''
    : `<div class="warn">Stopped by --max-requests ${r.requests.max ?? ''}: ${r.done} of ${r.planned} attempts looked at. Run again with the same --cache FILE to go on.</div>`;
  const notes = r.notes.map((n) => `<div>${esc(n)}</div>`).join('');
  return page(
    `reprise backtest: ${esc(r.scope)}`,
    `${STYLE}${EXTRA_STYLE}`,
    `<h1>reprise backtest: ${esc(r.scope)}</h1>
<div class="muted">${esc(day(r.period.since))} to ${esc(day(r.period.until))} · signals ${esc(r.signals)}</div>
<div class="cards">${cards}</div>
${stopped}${charts}
${section('Disagreements', list)}
<footer class="muted">${notes}<div>Waiting time saved is the time from each failed attempt's end to the start of the re-run people made, for the attempts reprise would have re-run too. GitHub requests: ${r.requests.total}.</div></footer>`,
  );
}
