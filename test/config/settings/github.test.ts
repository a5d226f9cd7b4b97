import { describe, expect, it } from 'vitest';
import { GITHUB_SETTINGS } from '../../../lib/config/settings/github.js';
import { fromText } from './rows.js';

describe('the GitHub settings', () => {
  it('takes an allow list of owner/name only, and refuses an empty one', () => {
    const allow = GITHUB_SETTINGS.repositoryAllowList;
    expect(fromText(allow, 'org/a,org/b')).toEqual(['org/a', 'org/b']);
    expect(() => fromText(allow, 'org')).toThrow(/owner\/name/);
  });

  it('reaches api.github.com unless told otherwise, and derives the GraphQL endpoint when unset', () => {
    expect(GITHUB_SETTINGS.githubApiUrl.default).toBe('https://api.github.com');
    expect(GITHUB_SETTINGS.githubGraphqlUrl.default).toBeUndefined();
    expect(() => fromText(GITHUB_SETTINGS.githubApiUrl, 'not a url')).toThrow();
  });
});
