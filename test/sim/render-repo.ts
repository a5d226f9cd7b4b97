import { nodeId } from './ids.js';
import type { SimApp, SimInstallation, SimPullRequest, SimRepo } from './types.js';

/** Web links point at github.com, as they would from api.github.com; API links point at the simulator. */
export const HTML = 'https://github.com';
const REPO_CREATED = '2023-03-01T09:00:00Z';

export function user(api: string, login: string, id: number, type: 'User' | 'Organization' | 'Bot' = 'Organization') {
  // A bot's login (`renovate[bot]`) is percent-encoded in its URLs, as GitHub sends them.
  const path = encodeURIComponent(login);
  const url = `${api}/users/${path}`;
  return {
    login,
    id,
    node_id: nodeId(type === 'Organization' ? 'O' : 'U', id),
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: '',
    url,
    html_url: `${HTML}/${path}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type,
    user_view_type: 'public',
    site_admin: false,
  };
}

/** The actor behind runs and pull requests in the simulated world. */
export function octocat(api: string) {
  return user(api, 'octocat', 583_231, 'User');
}

/** Satisfies both "Minimal Repository" and "Repository". */
export function repository(api: string, r: SimRepo) {
  const url = `${api}/repos/${r.fullName}`;
  return {
    id: r.id,
    node_id: r.nodeId,
    name: r.name,
    full_name: r.fullName,
    owner: user(api, r.owner, r.ownerId),
    private: true,
    html_url: `${HTML}/${r.fullName}`,
    description: null,
    fork: false,
    url,
    archive_url: `${url}/{archive_format}{/ref}`,
    assignees_url: `${url}/assignees{/user}`,
    blobs_url: `${url}/git/blobs{/sha}`,
    branches_url: `${url}/branches{/branch}`,
    collaborators_url: `${url}/collaborators{/collaborator}`,
    comments_url: `${url}/comments{/number}`,
    commits_url: `${url}/commits{/sha}`,
    compare_url: `${url}/compare/{base}...{head}`,
    contents_url: `${url}/contents/{+path}`,
    contributors_url: `${url}/contributors`,
    deployments_url: `${url}/deployments`,
    downloads_url: `${url}/downloads`,
    events_url: `${url}/events`,
    forks_url: `${url}/forks`,
    git_commits_url: `${url}/git/commits{/sha}`,
    git_refs_url: `${url}/git/refs{/sha}`,
    git_tags_url: `${url}/git/tags{/sha}`,
    git_url: `git://github.com/${r.fullName}.git`,
    issue_comment_url: `${url}/issues/comments{/number}`,
    issue_events_url: `${url}/issues/events{/number}`,
    issues_url: `${url}/issues{/number}`,
    keys_url: `${url}/keys{/key_id}`,
    labels_url: `${url}/labels{/name}`,
    languages_url: `${url}/languages`,
    merges_url: `${url}/merges`,
    milestones_url: `${url}/milestones{/number}`,
    notifications_url: `${url}/notifications{?since,all,participating}`,
    pulls_url: `${url}/pulls{/number}`,
    releases_url: `${url}/releases{/id}`,
    ssh_url: `git@github.com:${r.fullName}.git`,
    stargazers_url: `${url}/stargazers`,
    statuses_url: `${url}/statuses/{sha}`,
    subscribers_url: `${url}/subscribers`,
    subscription_url: `${url}/subscription`,
    tags_url: `${url}/tags`,
    teams_url: `${url}/teams`,
    trees_url: `${url}/git/trees{/sha}`,
    clone_url: `${HTML}/${r.fullName}.git`,
    mirror_url: null,
    hooks_url: `${url}/hooks`,
    svn_url: `${HTML}/${r.fullName}`,
    homepage: null,
    language: 'TypeScript',
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    size: 1024,
    default_branch: r.defaultBranch,
    open_issues: 0,
    open_issues_count: 0,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: 'private',
    pushed_at: '2026-01-05T10:00:00Z',
    created_at: REPO_CREATED,
    updated_at: '2026-01-05T10:00:00Z',
    license: null,
    allow_forking: false,
    web_commit_signoff_required: false,
  };
}

export function pullRequest(api: string, repo: SimRepo, pr: SimPullRequest) {
  const url = `${api}/repos/${repo.fullName}/pulls/${pr.number}`;
  const issue = `${api}/repos/${repo.fullName}/issues/${pr.number}`;
  const html = `${HTML}/${repo.fullName}/pull/${pr.number}`;
  const author = octocat(api);
  const side = (ref: string, sha: string) => ({
    label: `${repo.owner}:${ref}`,
    ref,
    sha,
    user: user(api, repo.owner, repo.ownerId),
    repo: repository(api, repo),
  });
  return {
    url,
    id: pr.id,
    node_id: nodeId('PR', repo.id, pr.id),
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: issue,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${api}/repos/${repo.fullName}/pulls/comments{/number}`,
    comments_url: `${issue}/comments`,
    statuses_url: `${api}/repos/${repo.fullName}/statuses/${pr.headSha}`,
    number: pr.number,
    state: pr.state,
    locked: false,
    title: `Change #${pr.number}`,
    user: author,
    body: null,
    labels: [],
    milestone: null,
    active_lock_reason: null,
    created_at: pr.createdAt,
    updated_at: pr.createdAt,
    closed_at: pr.state === 'closed' ? pr.createdAt : null,
    merged_at: null,
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: side(pr.headRef, pr.headSha),
    base: side(pr.baseRef, '0'.repeat(40)),
    _links: {
      self: { href: url },
      html: { href: html },
      issue: { href: issue },
      comments: { href: `${issue}/comments` },
      review_comments: { href: `${url}/comments` },
      review_comment: { href: `${api}/repos/${repo.fullName}/pulls/comments{/number}` },
      commits: { href: `${url}/commits` },
      statuses: { href: `${api}/repos/${repo.fullName}/statuses/${pr.headSha}` },
    },
    author_association: 'MEMBER',
    auto_merge: null,
    draft: false,
    merged: false,
    mergeable: true,
    rebaseable: true,
    mergeable_state: 'clean',
    merged_by: null,
    comments: 0,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: 1,
    additions: 10,
    deletions: 2,
    changed_files: 1,
  };
}

export function githubApp(api: string, app: SimApp, ownerId: number) {
  return {
    id: app.id,
    slug: app.slug,
    node_id: nodeId('A', app.id),
    client_id: app.clientId,
    owner: user(api, app.owner, ownerId),
    name: app.name,
    description: 'Re-runs GitHub Actions jobs lost to infrastructure.',
    external_url: 'https://reprise.example.com',
    html_url: app.htmlUrl,
    created_at: '2026-01-02T08:00:00Z',
    updated_at: '2026-01-02T08:00:00Z',
    permissions: { actions: 'write', checks: 'write', contents: 'read', metadata: 'read', pull_requests: 'read' },
    events: ['workflow_run'],
    installations_count: 1,
  };
}

/** The app that owns the check runs of Actions jobs. */
export function actionsApp(api: string) {
  const app = githubApp(
    api,
    {
      id: 15_368,
      slug: 'github-actions',
      name: 'GitHub Actions',
      owner: 'github',
      htmlUrl: `${HTML}/apps/github-actions`,
    } as SimApp,
    9_919,
  );
  const { client_id: _clientId, ...rest } = app;
  return { ...rest, description: 'Automate your workflow from idea to production' };
}

export function installation(api: string, app: SimApp, inst: SimInstallation) {
  return {
    id: inst.id,
    // GitHub's description types this account as Simple User *and* Enterprise (allOf), so carry both shapes.
    account: {
      ...user(api, inst.account, inst.accountId),
      name: inst.account,
      slug: inst.account.toLowerCase(),
      created_at: inst.createdAt,
      updated_at: inst.createdAt,
    },
    repository_selection: inst.repositorySelection,
    access_tokens_url: `${api}/app/installations/${inst.id}/access_tokens`,
    repositories_url: `${api}/installation/repositories`,
    html_url: `${HTML}/organizations/${inst.account}/settings/installations/${inst.id}`,
    app_id: app.id,
    app_slug: app.slug,
    target_id: inst.accountId,
    target_type: 'Organization',
    permissions: inst.permissions,
    events: inst.events,
    created_at: inst.createdAt,
    updated_at: inst.createdAt,
    single_file_name: null,
    has_multiple_single_files: false,
    single_file_paths: [],
    suspended_by: null,
    suspended_at: null,
  };
}
