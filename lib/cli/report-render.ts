import { table } from './io.js';
import { recoveryCard, recoveryLines } from './report-recovery.js';
import { page, STYLE } from './report-page.js';
import {
  type Count,
  type Loss,
  OUTCOME_SHARES,
  type OutcomeShare,
  recoveredShare,
  type Report,
} from './report-data.js';

const minutes = (n: number): string => `${n.toLocaleString('en-US', { maximumFractionDigits: 1 })} min`;
const money = (n: number, places = 2): string =>
  `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: places })}`;
/** A price per minute keeps its fractions of a cent. */
const price = (n: number): string => money(n, 6);
const percent = (share: number | undefined): string => (share === undefined ? '—' : `${Math.round(share * 100)}%`);
const day = (iso: string): string => iso.replace(/:\d{2}\.\d{3}Z$/, 'Z').replace('T', ' ');

/** The report as plain text, for a terminal. */
export function reportText(r: Report, where: string): string {
  const out: string[] = [];
  out.push(`reprise report: ${day(r.period.since)} to ${day(r.period.until)} (${where})`, '');
  if (r.pausedNow?.length) out.push(...r.pausedNow.map((p) => `PAUSED NOW: ${p}`), '');
  out.push(`Run attempts decided: ${r.decisions.total}`);
  if (r.decisions.total > 0) out.push(indent(table(['DECISION', 'RUNS'], r.decisions.byDecision.map(countRow))));
  if (r.decisions.deadLettered > 0) {
    out.push(
      `  Dead-lettered (abandoned after MAX_RECEIVE_COUNT receives): ${r.decisions.deadLettered}; redrive with reprise replay --dead-letters --local`,
    );
  }
  out.push('');
  const o = r.reruns.outcomes;
  out.push(
    `Re-runs: ${r.reruns.total} (recovered ${percent(recoveredShare(r))} of those finished)`,
    indent(
      table(
        ['OUTCOME', 'RE-RUNS'],
        OUTCOME_SHARES.map((s) => [s, String(o[s])]),
      ),
    ),
    '',
  );
  if (r.requeued > 0) out.push(`Pull requests put back in the merge queue: ${r.requeued}`, '');
  out.push(...recoveryLines(r.recovery), '');
  const untimed = r.lost.jobsWithoutTimes > 0 ? `, ${r.lost.jobsWithoutTimes} without times` : '';
  out.push(
    `Runner minutes lost to infrastructure: ${minutes(r.lost.minutes)} over ${r.lost.jobs} job(s)${untimed}`,
    `Estimated cost: ${money(r.lost.cost)} at ${price(r.lost.pricePerMinute)} per minute`,
  );
  // How the lost jobs were judged lost: GitHub's own platform failures (`platform`) apart from runner losses.
  if (r.lostByEvidence.length > 0) {
    out.push(`Lost jobs by evidence: ${r.lostByEvidence.map((c) => `${c.name} ${c.count}`).join(', ')}`);
  }
  out.push('');
  out.push(`Interruptions (spot interruption warnings, one per instance): ${r.interruptions.total}`);
  if (r.interruptions.total > 0) {
    out.push(indent(table(['INSTANCE TYPE', 'INTERRUPTIONS'], r.interruptions.byInstanceType.map(countRow))));
    out.push(indent(table(['AVAILABILITY ZONE', 'INTERRUPTIONS'], r.interruptions.byZone.map(countRow))));
  }
  out.push('');
  out.push('Repositories losing the most minutes:');
  out.push(
    r.topRepositories.length === 0
      ? '  none'
      : indent(table(['REPOSITORY', 'MINUTES', 'JOBS'], r.topRepositories.map(lossRow))),
  );
  out.push('', 'Workflows losing the most minutes:');
  out.push(
    r.topWorkflows.length === 0
      ? '  none'
      : indent(
          table(
            ['REPOSITORY', 'WORKFLOW', 'MINUTES', 'JOBS'],
            r.topWorkflows.map((w) => [w.repository, w.workflow, String(w.minutes), String(w.jobs)]),
          ),
        ),
  );
  return out.join('\n');
}

const indent = (s: string): string =>
  s
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
const countRow = (c: Count): string[] => [c.name, String(c.count)];
const lossRow = (l: Loss): string[] => [l.name, String(l.minutes), String(l.jobs)];

/** Text made safe inside HTML: workflow and repository names are whatever their owners wrote. */
export const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The colour of each outcome share in the report's charts. */
export const OUTCOME_COLOURS: Readonly<Record<OutcomeShare, string>> = {
  recovered: '#2da44e',
  lost_again: '#d4762c',
  failed: '#cf222e',
  cancelled: '#8c959f',
  pending: '#8fb8de',
};

const WIDTH = 560;

/**
 * Each chart is drawn twice, for a wide page and for a phone (CSS shows one): an SVG scaled down
 * to 390 px would shrink its text to about 5 px, so the narrow one is laid out at that width.
 */
interface Frame {
  readonly kind: 'wide' | 'narrow';
  readonly width: number;
  readonly labelW: number;
  readonly valueW: number;
  readonly clip: number;
}
const WIDE: Frame = { kind: 'wide', width: WIDTH, labelW: 200, valueW: 90, clip: 30 };
const NARROW: Frame = { kind: 'narrow', width: 330, labelW: 124, valueW: 62, clip: 14 };

/** Horizontal bars, one row per item; none when every value is zero. */
export function barChart(
  title: string,
  rows: readonly { label: string; value: number; shown: string }[],
  colour: string,
): string {
  const data = rows.filter((r) => r.value > 0);
  if (data.length === 0) return section(title, '<p class="empty">Nothing in this period.</p>');
  const max = Math.max(...data.map((r) => r.value));
  const rowH = 26;
  const draw = (f: Frame): string => {
    const barMax = f.width - f.labelW - f.valueW;
    const bars = data
      .map((r, i) => {
        const y = i * rowH;
        const w = Math.max(2, (r.value / max) * barMax);
        return (
          `<text x="${f.labelW - 8}" y="${y + 17}" text-anchor="end" class="label">${esc(clip(r.label, f.clip))}</text>` +
          `<rect class="mark" x="${f.labelW}" y="${y + 4}" width="${w.toFixed(1)}" height="${rowH - 8}" rx="3" fill="${colour}"><title>${esc(r.label)}: ${esc(r.shown)}</title></rect>` +
          `<text x="${(f.labelW + w + 6).toFixed(1)}" y="${y + 17}" class="value">${esc(r.shown)}</text>`
        );
      })
      .join('');
    return svg(f.width, data.length * rowH, title, bars, f.kind);
  };
  return section(title, draw(WIDE) + draw(NARROW));
}

const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** An accessible SVG chart of the given size, titled for screen readers. */
export const svg = (w: number, h: number, title: string, body: string, kind?: Frame['kind']): string =>
  `<svg role="img" aria-label="${esc(title)}"${kind ? ` class="${kind}"` : ''} viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" xmlns="http://www.w3.org/2000/svg">${body}</svg>`;

/** A titled section of the HTML report. */
export const section = (title: string, body: string): string => `<section><h2>${esc(title)}</h2>${body}</section>`;

/** Minutes lost per hour, day or week of the period: one column each. */
function overTimeChart(r: Report): string {
  const title = `Runner minutes lost per ${r.period.bucket}`;
  const points = r.overTime;
  const max = Math.max(0, ...points.map((p) => p.minutes));
  if (max === 0) return section(title, '<p class="empty">No minutes lost in this period.</p>');
  const h = 180;
  const left = 44;
  const bottom = 22;
  const y = (v: number) => (h - bottom) * (1 - v / max);
  const draw = (width: number, kind: Frame['kind']): string => {
    const plotW = width - left;
    const step = plotW / points.length;
    const barW = Math.max(1, step * 0.8);
    const cols = points
      .map((p, i) => {
        if (p.minutes <= 0) return '';
        const top = y(p.minutes);
        return `<rect class="mark" x="${(left + i * step).toFixed(1)}" y="${top.toFixed(1)}" width="${barW.toFixed(1)}" height="${(h - bottom - top).toFixed(1)}" fill="#d4762c"><title>${esc(day(p.start))}: ${esc(minutes(p.minutes))}, ${p.jobs} job(s)</title></rect>`;
      })
      .join('');
    const axis =
      `<line x1="${left}" y1="${h - bottom}" x2="${left + plotW}" y2="${h - bottom}" class="axis"/>` +
      `<text x="${left - 6}" y="10" text-anchor="end" class="value">${esc(String(Math.round(max)))}</text>` +
      `<text x="${left - 6}" y="${h - bottom}" text-anchor="end" class="value">0</text>`;
    // A phone has room for the first and the last label only.
    const at = kind === 'wide' ? [0, Math.floor((points.length - 1) / 2), points.length - 1] : [0, points.length - 1];
    const ticks = at
      .filter((v, i, a) => a.indexOf(v) === i)
      .map((i, n, all) => {
        const anchor = n === 0 ? 'start' : n === all.length - 1 ? 'end' : 'middle';
        const x = left + i * step + (anchor === 'end' ? barW : anchor === 'middle' ? barW / 2 : 0);
        const label = r.period.bucket === 'hour' ? day(points[i]!.start) : points[i]!.start.slice(0, 10);
        return `<text x="${x.toFixed(1)}" y="${h - 4}" text-anchor="${anchor}" class="label">${esc(label)}</text>`;
      })
      .join('');
    return svg(width, h, title, axis + cols + ticks, kind);
  };
  return section(title, draw(WIDTH * 1.6, 'wide') + draw(NARROW.width, 'narrow'));
}

/** The re-runs' outcomes as one bar split into shares, with a legend. */
function outcomesChart(r: Report): string {
  const title = 'What became of the re-runs';
  const total = r.reruns.total;
  if (total === 0) return section(title, '<p class="empty">No re-runs in this period.</p>');
  let x = 0;
  const parts = OUTCOME_SHARES.filter((s) => r.reruns.outcomes[s] > 0).map((s) => {
    const n = r.reruns.outcomes[s];
    const w = (n / total) * WIDTH;
    const part = `<rect class="mark" x="${x.toFixed(1)}" y="0" width="${w.toFixed(1)}" height="34" fill="${OUTCOME_COLOURS[s]}"><title>${s}: ${n} of ${total}</title></rect>`;
    x += w;
    return part;
  });
  const legend = OUTCOME_SHARES.map(
    (s) =>
      `<li><span class="swatch" style="background:${OUTCOME_COLOURS[s]}"></span>${esc(s.replace('_', ' '))} <b>${r.reruns.outcomes[s]}</b> <span class="muted">(${percent(r.reruns.outcomes[s] / total)})</span></li>`,
  ).join('');
  return section(title, `${svg(WIDTH, 34, title, parts.join(''))}<ul class="legend">${legend}</ul>`);
}

/** One headline figure of the HTML report, with its label and an optional note. */
export const card = (label: string, value: string, note = ''): string =>
  `<div class="card"><div class="big">${esc(value)}</div><div>${esc(label)}</div>${note && `<div class="muted">${esc(note)}</div>`}</div>`;

/** One self-contained page: inline CSS and SVG, no script, nothing loaded from anywhere. */
export function reportHtml(r: Report, where: string): string {
  const share = recoveredShare(r);
  const cards = [
    ...(r.pausedNow ?? []).map((p) => card('re-runs paused now', 'paused', p)),
    card('run attempts decided', String(r.decisions.total)),
    card('re-runs', String(r.reruns.total), `${percent(share)} recovered of those finished`),
    ...(r.requeued > 0 ? [card('back in the merge queue', String(r.requeued), 'pull requests queued again')] : []),
    ...recoveryCard(r.recovery, card),
    card('runner minutes lost', minutes(r.lost.minutes), `${r.lost.jobs} job(s) lost to infrastructure`),
    card('estimated cost', money(r.lost.cost), `at ${price(r.lost.pricePerMinute)} per minute`),
    card('interruptions', String(r.interruptions.total), 'spot interruption warnings'),
  ].join('');
  const losses = (l: Loss) => ({ label: l.name, value: l.minutes, shown: minutes(l.minutes) });
  const counts = (c: Count) => ({ label: c.name, value: c.count, shown: String(c.count) });
  const charts = [
    overTimeChart(r),
    `<div class="grid">${outcomesChart(r)}${barChart('Decisions', r.decisions.byDecision.map(counts), '#57606a')}</div>`,
    `<div class="grid">${barChart('Repositories losing the most minutes', r.topRepositories.map(losses), '#cf222e')}${barChart(
      'Workflows losing the most minutes',
      r.topWorkflows.map(losses),
      '#bf3989',
    )}</div>`,
    `<div class="grid">${barChart('Interruptions by instance type', r.interruptions.byInstanceType.map(counts), '#0969da')}${barChart(
      'Interruptions by availability zone',
      r.interruptions.byZone.map(counts),
      '#8250df',
    )}</div>`,
  ].join('');
  const untimed =
    r.lost.jobsWithoutTimes > 0
      ? ` ${r.lost.jobsWithoutTimes} lost job(s) were recorded without start and end times and count no minutes.`
      : '';
  return page(
    `reprise report: ${esc(day(r.period.since))} to ${esc(day(r.period.until))}`,
    STYLE,
    `<h1>reprise report</h1>
<div class="muted">${esc(day(r.period.since))} to ${esc(day(r.period.until))} · ${esc(where)}</div>
<div class="cards">${cards}</div>
${charts}
<footer class="muted">Minutes lost are the lost jobs' own running times; the cost is those minutes at the given price per minute.${esc(untimed)} Interruptions count each instance with a spot interruption warning once.</footer>`,
  );
}
