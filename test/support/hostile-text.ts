/**
 * Text a hostile workflow's author can put in job, runner and workflow names and annotation
 * messages, and how a test reads what a Markdown renderer makes of it. Check runs are rendered
 * with micromark and its GFM extension, raw HTML allowed, as GitHub's renderer takes it before
 * sanitising.
 */
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import type { JobVerdict } from '../../lib/model.js';

export const ESC = '\u001b';
export const CORPUS = {
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

export const render = (md: string): string =>
  micromark(md, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });

/** The tags no field may bring: everything reprise's own Markdown never makes. */
export const FORBIDDEN = /<(script|img|div|b|h[1-6]|a|em|strong|del|ol|ul|li|hr|pre|code)\b/;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export const verdictWith = (i: number, text: string): JobVerdict => ({
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
