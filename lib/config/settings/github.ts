import { list, url } from '../parsers.js';
import { def } from '../setting.js';

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/** Where GitHub is, and which repositories and log hosts reprise may reach. */
export const GITHUB_SETTINGS = {
  githubApiUrl: def({
    env: 'GITHUB_API_URL',
    prop: 'githubApiUrl',
    context: 'githubUrl',
    default: 'https://api.github.com',
    parse: url,
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: 'https://ghe.example.com/api/v3',
    doc: 'GitHub REST API base; `https://HOST/api/v3` for GitHub Enterprise Server',
  }),
  githubGraphqlUrl: def({
    env: 'GITHUB_GRAPHQL_URL',
    prop: 'githubGraphqlUrl',
    context: 'githubGraphqlUrl',
    default: undefined,
    defaultText: 'derived from the REST base',
    parse: url,
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: 'https://ghe.example.com/api/graphql-proxy',
    doc: 'GitHub GraphQL endpoint, when it is not the usual one (`…/api/graphql` for GHES, else `…/graphql`)',
  }),
  repositoryAllowList: def({
    env: 'REPOSITORY_ALLOW_LIST',
    prop: 'repositoryAllowList',
    context: 'repositoryAllowList',
    envSeparator: ',',
    default: undefined,
    defaultText: 'all',
    parse: list(/,/, { item: { test: REPO, what: 'owner/name' }, nonEmpty: true }),
    readBy: ['worker'],
    local: true,
    sample: ['org/a', 'org/b'],
    doc: 'comma-separated `owner/name` list; when set, runs of other repositories are `ignored`',
  }),
  logHosts: def({
    env: 'LOG_HOSTS',
    prop: 'logHosts',
    context: 'logHosts',
    envSeparator: ',',
    default: undefined,
    defaultText: "GitHub's log hosts",
    parse: list(/,/),
    readBy: ['worker'],
    local: true,
    sample: ['logs.example.com', '*.blob.example.net'],
    doc: "comma-separated hosts a job-log redirect may go to (`*.` wildcards); the API's own host is always allowed",
  }),
} as const;
