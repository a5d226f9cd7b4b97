/** The GitHub App manifest reprise registers with, and the page that posts it to GitHub. */

export interface ManifestOptions {
  readonly name: string;
  readonly homepageUrl: string;
  readonly webhookUrl: string;
  /** The local page's callback, where GitHub sends the browser back with a code. */
  readonly redirectUrl: string;
  /** `check_run` reports need `checks: write`. */
  readonly report: 'log' | 'check_run';
  /**
   * Ask for what `enqueuePullRequest` needs, for `merge_queue: requeue`, the default (`reprise
   * setup` asks unless `--no-merge-queue`). Off when absent here: those are write permissions on
   * every installed repository's contents, and without them a merge-group run lost to
   * infrastructure is re-run instead.
   */
  readonly mergeQueue?: boolean;
}

/** The GitHub App manifest, as GitHub's manifest flow reads it (snake_case, GitHub's own field names). */
export interface AppManifest {
  readonly name: string;
  readonly url: string;
  readonly description: string;
  readonly hook_attributes: { readonly url: string; readonly active: boolean };
  readonly redirect_url: string;
  readonly public: boolean;
  readonly default_permissions: Readonly<Record<string, 'read' | 'write'>>;
  readonly default_events: readonly string[];
}

/**
 * The least reprise needs: re-runs (actions: write), annotations and check runs (checks: read,
 * or write for `report: check_run`), the configuration file (contents: read), the pull requests
 * a run belongs to for staleness (pull_requests: read), and metadata, which every App has.
 */
export function appPermissions(report: 'log' | 'check_run'): Record<string, 'read' | 'write'> {
  return {
    actions: 'write',
    checks: report === 'check_run' ? 'write' : 'read',
    contents: 'read',
    pull_requests: 'read',
    metadata: 'read',
  };
}

/**
 * What putting a pull request back in the merge queue (`enqueuePullRequest`) needs: write on
 * pull requests and contents, as merging does, and on merge queues (GitHub's App permission
 * "merge queues": manage a repository's merge queues). GitHub documents no per-mutation App
 * permissions, so all three are asked for. No `merge_group` event is needed: the
 * `workflow_run` event already says a run is a merge group's.
 */
export const MERGE_QUEUE_PERMISSIONS: Readonly<Record<string, 'write'>> = {
  pull_requests: 'write',
  contents: 'write',
  merge_queues: 'write',
};

/** The permissions the App asks for: the least the settings need, and the merge queue's when asked. */
export const manifestPermissions = (o: Pick<ManifestOptions, 'report' | 'mergeQueue'>) => ({
  ...appPermissions(o.report),
  ...(o.mergeQueue === true && MERGE_QUEUE_PERMISSIONS),
});

/** The manifest `reprise setup` posts to GitHub: name, webhook, callback, events and permissions. */
export function buildManifest(o: ManifestOptions): AppManifest {
  return {
    name: o.name,
    url: o.homepageUrl,
    description: 'Re-runs GitHub Actions jobs lost to infrastructure and leaves genuine failures alone.',
    hook_attributes: { url: o.webhookUrl, active: true },
    redirect_url: o.redirectUrl,
    public: false,
    default_permissions: manifestPermissions(o),
    default_events: ['workflow_run', 'workflow_job'],
  };
}

/** GitHub's "new App from a manifest" page for a user or an organisation. */
export function newAppUrl(webUrl: string, state: string, org?: string): string {
  const base = webUrl.replace(/\/+$/, '');
  const path = org ? `/organizations/${encodeURIComponent(org)}/settings/apps/new` : '/settings/apps/new';
  return `${base}${path}?state=${encodeURIComponent(state)}`;
}

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const page = (title: string, body: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font:16px system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem}
pre{background:#f6f8fa;padding:1rem;overflow:auto;font-size:13px}button{font-size:1rem;padding:.6rem 1.2rem}</style>
</head><body>${body}</body></html>`;

/** The page with one button that posts the manifest to GitHub. */
export function manifestPage(action: string, manifest: AppManifest): string {
  const json = JSON.stringify(manifest, null, 2);
  return page(
    'Register reprise as a GitHub App',
    `<h1>Register reprise as a GitHub App</h1>
<p>GitHub will show the App it is about to create; confirm there. It then sends you back here, and this
command stores the App's id, private key and webhook secret.</p>
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="manifest" value="${escapeHtml(JSON.stringify(manifest))}">
<button type="submit">Create the GitHub App on GitHub</button>
</form>
<h2>Manifest</h2><pre>${escapeHtml(json)}</pre>`,
  );
}

/** A small HTML page that tells the browser how the setup went (escaped text only). */
export function resultPage(title: string, lines: readonly string[]): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}`);
}
