import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clip, TEXT_CAPS } from '../../lib/util/clip.js';

/** A high surrogate with no low one after it, or a low one with no high one before it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('clip', () => {
  it('text within the cap is returned as it is', () => {
    expect(clip('abc', 3)).toBe('abc');
    expect(clip('', 0)).toBe('');
  });

  it('longer text is cut to the cap and says how many characters were cut', () => {
    const text = 'x'.repeat(100);
    const cut = clip(text, 50);
    expect(cut.length).toBeLessThanOrEqual(50);
    const m = / … \((\d+) more characters\)$/.exec(cut);
    expect(m).not.toBeNull();
    const kept = cut.slice(0, m!.index);
    expect(kept).toBe('x'.repeat(kept.length));
    expect(kept.length + Number(m![1])).toBe(100);
  });

  it('never splits a surrogate pair: the result is well-formed UTF-16', () => {
    const text = '😀'.repeat(100);
    for (let max = 30; max < 70; max++) {
      const cut = clip(text, max);
      expect(LONE_SURROGATE.test(cut), `max ${max}`).toBe(false);
      expect(cut.length).toBeLessThanOrEqual(max);
    }
  });

  it('any text, any cap at least as long as the note: within the cap, and the kept part plus the cut count is the whole', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.integer({ min: 30, max: 400 }), (text, max) => {
        const cut = clip(text, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        if (text.length <= max) {
          expect(cut).toBe(text);
        } else {
          const m = / … \((\d+) more characters\)$/.exec(cut)!;
          expect(text.startsWith(cut.slice(0, m.index))).toBe(true);
          expect(m.index + Number(m[1])).toBe(text.length);
        }
      }),
    );
  });

  it('the caps: a reason, an error quoted, a name', () => {
    expect(TEXT_CAPS).toEqual({ reason: 4_000, error: 1_000, name: 200 });
  });
});
