import { describe, expect, it } from 'vitest';
import {
  appPermissions,
  buildManifest,
  manifestPage,
  manifestPermissions,
  MERGE_QUEUE_PERMISSIONS,
  newAppUrl,
  resultPage,
} from '../../lib/cli/manifest.js';

const OPTIONS = {
  name: 'reprise-acme',
  homepageUrl: 'https://github.com/acme/reprise',
  webhookUrl: 'https://h.example.com/webhook',
  redirectUrl: 'http://127.0.0.1:4000/abc/callback',
  report: 'log' as const,
};

describe('manifest: what the App asks for', () => {
  it('the least reprise needs; checks: write only for check-run reports', () => {
    expect(appPermissions('log')).toEqual({
      actions: 'write',
      checks: 'read',
      contents: 'read',
      pull_requests: 'read',
      metadata: 'read',
    });
    expect(appPermissions('check_run').checks).toBe('write');
  });

  it('write on pull requests, contents and merge queues only with --merge-queue', () => {
    expect(manifestPermissions({ report: 'log' })).toEqual(appPermissions('log'));
    expect(manifestPermissions({ report: 'log', mergeQueue: false })).toEqual(appPermissions('log'));
    expect(manifestPermissions({ report: 'log', mergeQueue: true })).toEqual({
      ...appPermissions('log'),
      ...MERGE_QUEUE_PERMISSIONS,
    });
    expect(MERGE_QUEUE_PERMISSIONS).toEqual({ pull_requests: 'write', contents: 'write', merge_queues: 'write' });
  });

  it('the manifest: a private App on the webhook URL, sent back to the callback, with the two events the intake reads', () => {
    expect(buildManifest({ ...OPTIONS, report: 'check_run' })).toEqual({
      name: 'reprise-acme',
      url: 'https://github.com/acme/reprise',
      description: 'Re-runs GitHub Actions jobs lost to infrastructure and leaves genuine failures alone.',
      hook_attributes: { url: 'https://h.example.com/webhook', active: true },
      redirect_url: 'http://127.0.0.1:4000/abc/callback',
      public: false,
      default_permissions: appPermissions('check_run'),
      default_events: ['workflow_run', 'workflow_job'],
    });
  });

  it("GitHub's new-App page for a user or an organisation, the state encoded", () => {
    expect(newAppUrl('https://github.com/', 's t')).toBe('https://github.com/settings/apps/new?state=s%20t');
    expect(newAppUrl('https://ghe.example.com', 'x', 'my org')).toBe(
      'https://ghe.example.com/organizations/my%20org/settings/apps/new?state=x',
    );
  });
});

describe('manifest: the pages', () => {
  it('one form posting the manifest to GitHub, every value escaped, the manifest shown', () => {
    const manifest = buildManifest({ ...OPTIONS, name: `<b>"acme's"</b>` });
    const html = manifestPage('https://github.com/settings/apps/new?state=a&b', manifest);
    expect(html).toContain('<form method="post" action="https://github.com/settings/apps/new?state=a&amp;b">');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;b&gt;\\&quot;acme&#39;s\\&quot;&lt;/b&gt;');
    const value = /name="manifest" value="([^"]*)"/.exec(html)?.[1] ?? '';
    const decoded = value
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    expect(JSON.parse(decoded)).toEqual(manifest);
  });

  it('a result page: its title and one paragraph a line, escaped', () => {
    const html = resultPage('Done <now>', ['first & only']);
    expect(html).toContain('<title>Done &lt;now&gt;</title>');
    expect(html).toContain('<h1>Done &lt;now&gt;</h1><p>first &amp; only</p>');
  });
});

describe('reprise setup: the GitHub App manifest flow', () => {
  it.each([
    ['log', 'read'],
    ['check_run', 'write'],
  ] as const)(
    'the manifest asks for the least reprise needs, without merge queues: no contents: write, no pull_requests: write (report %s → checks: %s)',
    (report, checks) => {
      const m = buildManifest({
        name: 'reprise',
        homepageUrl: 'https://github.com',
        webhookUrl: 'https://h.example.com/webhook',
        redirectUrl: 'http://127.0.0.1:1/callback',
        report,
      });
      expect(m.default_permissions).toEqual({
        actions: 'write',
        checks,
        contents: 'read',
        pull_requests: 'read',
        metadata: 'read',
      });
      expect(m.default_permissions).toEqual(appPermissions(report));
      expect(m.default_events).toEqual(['workflow_run', 'workflow_job']);
      expect(m.public).toBe(false);
    },
  );

  it('with merge queues enabled (--merge-queue, for merge_queue: requeue) the manifest also asks for what enqueuePullRequest needs', () => {
    const m = buildManifest({
      name: 'reprise',
      homepageUrl: 'https://github.com',
      webhookUrl: 'https://h.example.com/webhook',
      redirectUrl: 'http://127.0.0.1:1/callback',
      report: 'log',
      mergeQueue: true,
    });
    expect(m.default_permissions).toEqual({
      actions: 'write',
      checks: 'read',
      contents: 'write',
      pull_requests: 'write',
      merge_queues: 'write',
      metadata: 'read',
    });
    expect(m.default_permissions).toEqual({ ...appPermissions('log'), ...MERGE_QUEUE_PERMISSIONS });
  });
});
