import type { GitHubClients } from '../github/client.js';
import type { AppClient } from './github.js';
import { isoTime } from './io.js';
import type { LedgerSource } from './ledger-source.js';
import { appPermissions, MERGE_QUEUE_PERMISSIONS } from './manifest.js';
import { deliverySucceeded, type HookDelivery } from '../github/hook-deliveries.js';

/** One line of `reprise status`: what was checked, how it went, and the fix when it did not. */
export interface Check {
  readonly name: string;
  readonly status: 'ok' | 'fail' | 'warn' | 'skip';
  readonly detail: string;
  /** What to do about it, for `fail` and `warn`. */
  readonly fix?: string;
}

/** The App as `GET /app` describes it, and where its settings are edited. */
export interface AppFacts {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  readonly htmlUrl: string;
  /** Where the App's settings (webhook URL, secret, permissions) are edited. */
  readonly settingsUrl: string;
}

const DAY_MS = 86_400_000;
const RATE_LIMIT_FLOOR = 0.1;
/** Installations whose rate limit is read: each costs a token and one request. */
export const RATE_LIMIT_INSTALLATIONS = 5;

const trim = (u: string): string => u.replace(/\/+$/, '');

/** Whether the App's webhook URL is the deployed one and sends JSON. */
export async function checkWebhook(app: AppClient, facts: AppFacts, expected: string | undefined): Promise<Check> {
  const { data } = await app.request('GET /app/hook/config');
  const url = data.url ?? '';
  const fixAt = `in the App settings (${facts.settingsUrl}), under Webhook`;
  if (data.content_type && data.content_type !== 'json') {
    return {
      name: 'webhook URL',
      status: 'fail',
      detail: `content type is ${data.content_type}; the intake reads JSON`,
      fix: `set Content type to application/json ${fixAt}`,
    };
  }
  if (!expected) {
    return {
      name: 'webhook URL',
      status: 'skip',
      detail: `${url} (pass --webhook-url or --stack to compare it with the deployed one)`,
    };
  }
  if (trim(url) !== trim(expected)) {
    return {
      name: 'webhook URL',
      status: 'fail',
      detail: `the App sends webhooks to ${url || '(none)'}, but the deployed URL is ${expected}`,
      fix: `set the Webhook URL to ${expected} ${fixAt}`,
    };
  }
  if (String(data.insecure_ssl) === '1') {
    return {
      name: 'webhook URL',
      status: 'warn',
      detail: `${url}, with SSL verification off`,
      fix: `enable SSL verification ${fixAt}`,
    };
  }
  return { name: 'webhook URL', status: 'ok', detail: url };
}

interface Installation {
  id: number;
  account: { login?: string } | null;
  repository_selection: string;
  suspended_at?: string | null;
  permissions: Record<string, string | undefined>;
  html_url: string;
}

const RANK: Record<string, number> = { read: 1, write: 2 };

/** Every installation of the App (`GET /app/installations`, all pages). */
export async function listInstallations(app: AppClient): Promise<Installation[]> {
  return (await app.paginate('GET /app/installations', { per_page: 100 })) as unknown as Installation[];
}

/** The setting that needs a permission beyond the least, named when an installation lacks it. */
const neededBy = (name: string, level: string): string =>
  name === 'checks' && level === 'write' ? ' (report: check_run needs it to create check runs)' : '';

/** `report` is the deployment's (REPORT, or --report): check_run needs checks: write of every installation. */
export function checkInstallations(
  installations: readonly Installation[],
  facts: AppFacts,
  report: 'log' | 'check_run' = 'log',
): Check {
  if (installations.length === 0) {
    return {
      name: 'installations',
      status: 'fail',
      detail: 'the App is not installed anywhere, so it receives no webhooks',
      fix: `install it: ${facts.htmlUrl}/installations/new`,
    };
  }
  const needed = appPermissions(report);
  const problems: string[] = [];
  const fixes: string[] = [];
  for (const i of installations) {
    const who = i.account?.login ?? `installation ${i.id}`;
    if (i.suspended_at) {
      problems.push(`${who} is suspended since ${i.suspended_at}`);
      fixes.push(`unsuspend it at ${i.html_url}`);
    }
    const missing = Object.entries(needed)
      .filter(([k, level]) => (RANK[i.permissions[k] ?? ''] ?? 0) < (RANK[level] ?? 0))
      .map(([k, level]) => `${k}: ${level}${neededBy(k, level)}`);
    if (missing.length > 0) {
      problems.push(`${who} lacks ${missing.join(', ')}`);
      fixes.push(`an owner of ${who} accepts the App's permissions at ${i.html_url}`);
    }
  }
  const summary = installations
    .map(
      (i) =>
        `${i.account?.login ?? i.id} (${i.repository_selection === 'all' ? 'all repositories' : 'selected repositories'})`,
    )
    .join(', ');
  if (problems.length > 0) {
    return {
      name: 'installations',
      status: 'fail',
      detail: `${summary}; ${problems.join('; ')}`,
      fix: fixes.join('; '),
    };
  }
  return { name: 'installations', status: 'ok', detail: summary };
}

/** The permissions `enqueuePullRequest` needs; without them merge-group runs fall back to the re-run. */
export function checkMergeQueuePermissions(installations: readonly Installation[]): Check {
  const name = 'merge queue';
  if (installations.length === 0) return { name, status: 'skip', detail: 'no installation' };
  const lacking = installations
    .map((i) => ({ i, missing: missingOf(i, MERGE_QUEUE_PERMISSIONS) }))
    .filter((x) => x.missing.length > 0);
  const needed = Object.entries(MERGE_QUEUE_PERMISSIONS)
    .map(([k, level]) => `${k}: ${level}`)
    .join(', ');
  if (lacking.length === 0) {
    return { name, status: 'ok', detail: `every installation grants what enqueuePullRequest needs (${needed})` };
  }
  return {
    name,
    status: 'warn',
    detail:
      lacking
        .map(({ i, missing }) => `${i.account?.login ?? `installation ${i.id}`} lacks ${missing.join(', ')}`)
        .join('; ') +
      `: a pull request ejected from its merge queue by a lost runner is not put back (its run is re-run instead)`,
    fix:
      `add ${needed} to the App's permissions (what reprise setup asks for unless --no-merge-queue), then an owner ` +
      `accepts them at ${lacking.map(({ i }) => i.html_url).join(', ')}; ` +
      'or set merge_queue: rerun in .github/reprise.yml to keep re-running merge-group runs',
  };
}

const missingOf = (i: Installation, needed: Readonly<Record<string, string>>): string[] =>
  Object.entries(needed)
    .filter(([k, level]) => (RANK[i.permissions[k] ?? ''] ?? 0) < (RANK[level] ?? 0))
    .map(([k, level]) => `${k}: ${level}`);

type Delivery = HookDelivery;

const failed = (d: Delivery): boolean => !deliverySucceeded(d);

/** Deliveries of the last 24 h that failed and were not delivered again successfully since. */
export async function checkDeliveries(app: AppClient, now = Date.now()): Promise<Check> {
  const since = now - DAY_MS;
  const recent: Delivery[] = [];
  for await (const page of app.paginate.iterator('GET /app/hook/deliveries', { per_page: 100 })) {
    const list = page.data as unknown as Delivery[];
    recent.push(...list.filter((d) => Date.parse(d.delivered_at) >= since));
    if (list.some((d) => Date.parse(d.delivered_at) < since)) break;
  }
  const okAfter = (d: Delivery): boolean =>
    recent.some((o) => o.guid === d.guid && !failed(o) && Date.parse(o.delivered_at) >= Date.parse(d.delivered_at));
  const failures = recent.filter(failed);
  const open = new Map<string, Delivery>();
  for (const d of failures) if (!okAfter(d) && !open.has(d.guid)) open.set(d.guid, d);
  const recovered = new Set(failures.map((d) => d.guid)).size - open.size;
  const note = recovered > 0 ? `, ${recovered} failed then redelivered` : '';
  if (open.size === 0) {
    return { name: 'deliveries', status: 'ok', detail: `${recent.length} in the last 24 h, none lost${note}` };
  }
  const listed = [...open.values()]
    .slice(0, 5)
    .map(
      (d) =>
        `${d.guid} ${d.event}${d.action ? `.${d.action}` : ''} status ${d.status_code || 'timed out'} at ${d.delivered_at}`,
    );
  return {
    name: 'deliveries',
    status: 'fail',
    detail: `${open.size} of ${recent.length} in the last 24 h failed${note}: ${listed.join('; ')}${open.size > 5 ? '; …' : ''}`,
    fix: `check the webhook URL and the intake's logs, then redeliver each: reprise replay ${[...open.keys()][0]}`,
  };
}

/** Requests left this hour for each installation, read through its token; a failure when one runs low. */
export async function checkRateLimit(
  installations: readonly Installation[],
  clients: (installationId: number) => GitHubClients,
): Promise<Check> {
  if (installations.length === 0) return { name: 'rate limit', status: 'skip', detail: 'no installation' };
  const parts: string[] = [];
  const low: string[] = [];
  for (const i of installations.slice(0, RATE_LIMIT_INSTALLATIONS)) {
    const { data } = await clients(i.id).rest.request('GET /rate_limit');
    const core = data.resources.core;
    const who = i.account?.login ?? String(i.id);
    parts.push(`${who} ${core.remaining}/${core.limit}`);
    if (core.remaining < core.limit * RATE_LIMIT_FLOOR) low.push(`${who} until ${isoTime(core.reset * 1000)}`);
  }
  const more =
    installations.length > RATE_LIMIT_INSTALLATIONS ? ` (first ${RATE_LIMIT_INSTALLATIONS} installations)` : '';
  if (low.length > 0) {
    return {
      name: 'rate limit',
      status: 'fail',
      detail: `less than ${RATE_LIMIT_FLOOR * 100}% left: ${parts.join(', ')}${more}`,
      fix: `decisions wait for the reset (${low.join(', ')}); look for another App or script using the same installation`,
    };
  }
  return { name: 'rate limit', status: 'ok', detail: `requests left this hour: ${parts.join(', ')}${more}` };
}

/** The last `count` decisions in the ledger, one line each; skipped when no ledger is named. */
export async function checkDecisions(source: LedgerSource | undefined, count: number): Promise<Check> {
  if (!source) {
    return { name: 'decisions', status: 'skip', detail: 'pass --stack, --table or --local to show the last decisions' };
  }
  const list = await source.list({ limit: count });
  if (list.length === 0) return { name: 'decisions', status: 'ok', detail: `none recorded yet in ${source.where}` };
  const lines = list.map(
    (d) => `${isoTime(d.decidedAt)} ${d.repository}#${d.runId}@${d.runAttempt} ${d.decision}: ${d.reason ?? ''}`,
  );
  return { name: 'decisions', status: 'ok', detail: `last ${list.length} from ${source.where}:\n${lines.join('\n')}` };
}

/** The EC2 signal's last pod listing on each EKS cluster: a failure means those runners fall back to text. */
export async function checkEksListings(source: LedgerSource | undefined): Promise<Check> {
  const name = 'EKS pods';
  if (!source?.eksListings) {
    return { name, status: 'skip', detail: 'pass --stack, --table or --local to show the EKS pod listings' };
  }
  const listings = await source.eksListings();
  if (listings.length === 0) {
    return { name, status: 'skip', detail: 'no EKS cluster asked yet (none configured, or no interruption since)' };
  }
  const failed = listings.filter((l) => !l.ok);
  const lines = listings.map((l) =>
    l.ok
      ? `${l.cluster}: listed the runner pods at ${isoTime(l.at)}`
      : `the signal function cannot list pods on cluster ${l.cluster}: ${l.cause ?? 'unknown cause'} ` +
        `(at ${isoTime(l.at)}${l.instanceId ? `, for ${l.instanceId}` : ''})`,
  );
  if (failed.length === 0) return { name, status: 'ok', detail: lines.join('\n') };
  return {
    name,
    status: 'fail',
    detail: lines.join('\n'),
    fix:
      'the EC2 signal role needs the cluster access entry with AmazonEKSViewPolicy (created by the construct), or an ' +
      'aws-auth mapping to a group that may list pods; the endpoint must be reachable from the function ' +
      '(docs/signals.md, Kubernetes)',
  };
}
