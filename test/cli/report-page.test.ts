import { describe, expect, it } from 'vitest';
import { page, STYLE } from '../../lib/cli/report-page.js';

describe('the HTML reports’ page', () => {
  it('is one self-contained document: a CSP that loads nothing from anywhere, its style inline, readable on a phone', () => {
    const p = page('reprise report', STYLE, '<h1>x</h1>');
    expect(p).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    );
    expect(p).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(p).toContain(`<style>${STYLE}</style>`);
    expect(p).toContain('<title>reprise report</title>');
    expect(p).not.toMatch(/<(?:script|link|img)\b/);
  });

  it('the style sheet holds no url(): nothing fetched', () => {
    expect(STYLE.length).toBeGreaterThan(0);
    expect(STYLE).not.toMatch(/url\(|@import/);
  });
});
