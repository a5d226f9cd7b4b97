import { describe, expect, it } from 'vitest';
import { labelsMatch, parseLabelSelector } from '../../lib/config/label-selector.js';

describe('parseLabelSelector and labelsMatch: the equality-based selectors kubectl -l takes', () => {
  const labels = { 'app.kubernetes.io/component': 'runner', 'actions.github.com/scale-set-name': 'linux' };
  it.each([
    ['app.kubernetes.io/component=runner', true],
    ['app.kubernetes.io/component==runner', true],
    ['app.kubernetes.io/component!=runner', false],
    ['app.kubernetes.io/component=listener', false],
    ['actions.github.com/scale-set-name', true],
    ['!actions.github.com/scale-set-name', false],
    ['app.kubernetes.io/component=runner,actions.github.com/scale-set-name=linux', true],
    ['app.kubernetes.io/component=runner,actions.github.com/scale-set-name=windows', false],
    ['missing!=x', true],
  ])('%s matches: %s', (selector, match) => {
    expect(labelsMatch(labels, parseLabelSelector(selector))).toBe(match);
  });

  it.each(['', 'a=b,', '!a=b', 'a b=c', 'a=b c', 'app/=x', 'a=' + 'x'.repeat(64)])('refuses %j', (selector) => {
    expect(() => parseLabelSelector(selector)).toThrow(/label selector/);
  });
});
