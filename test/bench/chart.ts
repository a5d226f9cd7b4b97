/**
 * The requests-per-decision chart, written as SVG by hand: matrix size on x (one column per
 * size), requests on a log scale on y, one line per pattern and loss level.
 */
import type { RequestsResult } from './requests.js';
import { LOSS_LEVELS, MATRIX_SIZES } from './scenarios.js';

const W = 760;
const H = 440;
const PLOT = { left: 64, right: 540, top: 64, bottom: 372 };
const Y_MAX = 300;
const Y_TICKS = [1, 2, 5, 10, 20, 50, 100, 200];
const COLOURS = { reprise: '#1f5fae', perJob: '#c8501c' };
const DASH: Record<string, string> = { '1 job': '2 4', '25 %': '7 4', '100 %': '' };

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const x = (i: number) => PLOT.left + 30 + (i * (PLOT.right - PLOT.left - 60)) / (MATRIX_SIZES.length - 1);
const y = (v: number) => PLOT.bottom - (Math.log10(v) / Math.log10(Y_MAX)) * (PLOT.bottom - PLOT.top);
const f = (n: number) => n.toFixed(1);

interface Series {
  readonly pattern: 'reprise' | 'perJob';
  readonly level: string;
  readonly points: readonly { readonly i: number; readonly v: number }[];
}

function series(r: RequestsResult): Series[] {
  const out: Series[] = [];
  for (const pattern of ['perJob', 'reprise'] as const) {
    for (const { label } of LOSS_LEVELS) {
      const points = MATRIX_SIZES.flatMap((size, i) => {
        const row = r.rows.find((row) => row.jobs === size && row.levels.includes(label));
        if (!row) return [];
        return [{ i, v: (pattern === 'reprise' ? row.reprise : row.baseline).requests.counted }];
      });
      out.push({ pattern, level: label, points });
    }
  }
  return out;
}

export function requestsChart(r: RequestsResult, measuredOn: string): string {
  const parts: string[] = [];
  const text = (tx: number, ty: number, s: string, attrs = '') =>
    parts.push(`<text x="${f(tx)}" y="${f(ty)}"${attrs ? ` ${attrs}` : ''}>${esc(s)}</text>`);

  parts.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  text(PLOT.left, 28, 'GitHub requests per decision', 'font-size="17" font-weight="600"');
  text(
    PLOT.left,
    48,
    `Requests GitHub counts (REST + GraphQL, 304 excluded); GitHub simulator, measured ${measuredOn}`,
    'font-size="12" fill="#555"',
  );
  for (const t of Y_TICKS) {
    parts.push(
      `<line x1="${PLOT.left}" x2="${PLOT.right}" y1="${f(y(t))}" y2="${f(y(t))}" stroke="#e3e3e3" stroke-width="1"/>`,
    );
    text(PLOT.left - 8, y(t) + 4, String(t), 'font-size="12" text-anchor="end" fill="#333"');
  }
  parts.push(
    `<line x1="${PLOT.left}" x2="${PLOT.left}" y1="${PLOT.top}" y2="${PLOT.bottom}" stroke="#888"/>`,
    `<line x1="${PLOT.left}" x2="${PLOT.right}" y1="${PLOT.bottom}" y2="${PLOT.bottom}" stroke="#888"/>`,
  );
  MATRIX_SIZES.forEach((size, i) =>
    text(x(i), PLOT.bottom + 20, String(size), 'font-size="12" text-anchor="middle" fill="#333"'),
  );
  text((PLOT.left + PLOT.right) / 2, PLOT.bottom + 44, 'jobs in the matrix', 'font-size="13" text-anchor="middle"');
  text(
    18,
    (PLOT.top + PLOT.bottom) / 2,
    'requests per decision (log scale)',
    `font-size="13" text-anchor="middle" transform="rotate(-90 18 ${f((PLOT.top + PLOT.bottom) / 2)})"`,
  );

  const all = series(r);
  for (const s of all) {
    const colour = COLOURS[s.pattern];
    const path = s.points.map((p, k) => `${k === 0 ? 'M' : 'L'}${f(x(p.i))},${f(y(p.v))}`).join(' ');
    const dash = DASH[s.level] ? ` stroke-dasharray="${DASH[s.level]}"` : '';
    parts.push(`<path d="${path}" fill="none" stroke="${colour}" stroke-width="2"${dash}/>`);
    for (const p of s.points) {
      parts.push(
        s.pattern === 'reprise'
          ? `<circle cx="${f(x(p.i))}" cy="${f(y(p.v))}" r="3.5" fill="${colour}"><title>reprise, ${esc(s.level)} lost, ${MATRIX_SIZES[p.i]} jobs: ${p.v}</title></circle>`
          : `<rect x="${f(x(p.i) - 3.5)}" y="${f(y(p.v) - 3.5)}" width="7" height="7" fill="${colour}"><title>per-job pattern, ${esc(s.level)} lost, ${MATRIX_SIZES[p.i]} jobs: ${p.v}</title></rect>`,
      );
    }
  }

  // Legend, with each line's value at 200 jobs.
  let ly = PLOT.top + 6;
  for (const pattern of ['perJob', 'reprise'] as const) {
    const name = pattern === 'reprise' ? 'reprise (batched)' : 'per-job REST pattern';
    text(PLOT.right + 24, ly, name, `font-size="13" font-weight="600" fill="${COLOURS[pattern]}"`);
    ly += 20;
    for (const s of all.filter((a) => a.pattern === pattern)) {
      const dash = DASH[s.level] ? ` stroke-dasharray="${DASH[s.level]}"` : '';
      parts.push(
        `<line x1="${PLOT.right + 24}" x2="${PLOT.right + 56}" y1="${ly - 4}" y2="${ly - 4}" stroke="${COLOURS[pattern]}" stroke-width="2"${dash}/>`,
      );
      const last = s.points.at(-1);
      text(
        PLOT.right + 64,
        ly,
        `${s.level} lost${last ? `: ${last.v} at ${MATRIX_SIZES[last.i]}` : ''}`,
        'font-size="12"',
      );
      ly += 18;
    }
    ly += 14;
  }
  for (const [k, line] of [
    "reprise's three lines overlap",
    'up to 60 jobs. Both patterns',
    're-ran the same runs, in the',
    'same benchmark run.',
  ].entries()) {
    text(PLOT.right + 24, ly + 4 + 14 * k, line, 'font-size="11" fill="#555"');
  }

  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="title desc" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif">`,
    '<title id="title">GitHub requests per decision: reprise against the per-job REST pattern</title>',
    `<desc id="desc">${esc(describe(all))}</desc>`,
    ...parts.map((p) => `  ${p}`),
    '</svg>',
    '',
  ].join('\n');
}

function describe(all: readonly Series[]): string {
  return all
    .map((s) => {
      const who = s.pattern === 'reprise' ? 'reprise' : 'per-job pattern';
      const values = s.points.map((p) => `${MATRIX_SIZES[p.i]} jobs ${p.v}`).join(', ');
      return `${who}, ${s.level} lost: ${values}.`;
    })
    .join(' ');
}
