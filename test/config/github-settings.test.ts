import { describe, expect, it } from 'vitest';
import {
  DECISION_NEED_MS,
  DECISION_ROUND_TRIPS,
  DEFAULT_LOG_HOSTS,
  GITHUB_REQUEST_TIMEOUT_MS,
  graphqlUrlFor,
  isGhesApiUrl,
  logHostsFor,
} from '../../lib/config/github-settings.js';

describe('graphqlUrlFor', () => {
  it.each([
    ['https://api.github.com', 'https://api.github.com/graphql'],
    ['https://api.github.com/', 'https://api.github.com/graphql'],
    ['https://api.acme.ghe.com', 'https://api.acme.ghe.com/graphql'],
    ['https://ghe.example/api/v3', 'https://ghe.example/api/graphql'],
    ['https://ghe.example/api/v3//', 'https://ghe.example/api/graphql'],
    ['http://127.0.0.1:4000', 'http://127.0.0.1:4000/graphql'],
  ])('%s → %s', (api, graphql) => {
    expect(graphqlUrlFor(api)).toBe(graphql);
  });

  it('only an /api/v3 base is GHES', () => {
    expect(isGhesApiUrl('https://ghe.example/api/v3/')).toBe(true);
    expect(isGhesApiUrl('https://api.github.com')).toBe(false);
    expect(isGhesApiUrl('https://ghe.example/api/v3/extra')).toBe(false);
  });
});

describe('logHostsFor', () => {
  it("GitHub's log hosts by default, and the API's own host beside them", () => {
    expect(logHostsFor('https://ghe.example/api/v3')).toEqual([...DEFAULT_LOG_HOSTS, 'ghe.example']);
  });

  it('the configured hosts replace the defaults; the API host is added once, whatever its case', () => {
    expect(logHostsFor('https://api.github.com', ['logs.example'])).toEqual(['logs.example', 'api.github.com']);
    expect(logHostsFor('https://API.github.com', ['api.github.com'])).toEqual(['api.github.com']);
  });
});

describe('the decision deadline', () => {
  it('a decision needs every round trip of its longest path at the full timeout', () => {
    expect(DECISION_NEED_MS).toBe(GITHUB_REQUEST_TIMEOUT_MS * DECISION_ROUND_TRIPS);
    expect(DECISION_ROUND_TRIPS).toBe(8);
  });
});
