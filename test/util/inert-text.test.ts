import { describe, expect, it } from 'vitest';
import { inlineMarkdown, stripControls } from '../../lib/util/inert-text.js';
import { CONTROLS, CORPUS, ESC, FORBIDDEN, render } from '../support/hostile-text.js';

describe('inlineMarkdown: the text reads as itself', () => {
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

  it.each(Object.entries(CORPUS))('%s: one paragraph, no markup, no control character', (_label, text) => {
    const html = render(inlineMarkdown(text));
    expect(html).not.toMatch(FORBIDDEN);
    expect(html).not.toMatch(CONTROLS);
    expect(html.match(/<p>/g)).toHaveLength(1);
  });

  it('line breaks become single spaces and leading space goes, so nothing starts a block', () => {
    expect(inlineMarkdown('  a\n\n  b\r\nc\t d')).toBe('a b c d');
  });

  it('a leading hyphen is escaped (a list), an inner one is not; quotes, commas and slashes stay as written', () => {
    expect(inlineMarkdown('- item')).toBe('\\- item');
    expect(inlineMarkdown('job "shard-1", a/b')).toBe('job "shard-1", a/b');
  });

  it('each punctuation character that could start markup is backslash-escaped', () => {
    expect(inlineMarkdown('*_`[]()<>#|!~^{}$&@:.+')).toBe(
      '\\*\\_\\`\\[\\]\\(\\)\\<\\>\\#\\|\\!\\~\\^\\{\\}\\$\\&\\@\\:\\.\\+',
    );
  });
});

describe('stripControls', () => {
  it('removes colour, cursor and title sequences, 7-bit and 8-bit, and keeps the text between them', () => {
    expect(stripControls(`${ESC}[31mred${ESC}[0m ok`)).toBe('red ok');
    expect(stripControls(`${ESC}]0;owned\u0007title`)).toBe('title');
    expect(stripControls(`${ESC}]8;;https://evil.example${ESC}\\link${ESC}]8;;${ESC}\\`)).toBe('link');
    expect(stripControls('\u009b31mx')).toBe('x');
  });

  it('removes C0 and C1 controls, DEL and bidirectional overrides, but keeps tabs and newlines', () => {
    expect(stripControls('a\u0000b\u0008c\u007fd\u0085e\u202egnp\u2066f\u200fg')).toBe('abcdegnpfg');
    expect(stripControls('line 1\n\tline 2')).toBe('line 1\n\tline 2');
  });

  it('leaves ordinary text, emoji and other scripts alone', () => {
    const text = 'build ✅ – ビルド – сборка';
    expect(stripControls(text)).toBe(text);
  });
});
