import { execFileSync, spawn } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What a checkout holds besides its sources: never linked into a sandbox. */
const LOCAL_STATE = new Set(['.git', '.env', '.reprise', 'cdk.out', 'bench', 'coverage']);

const made: string[] = [];

/** Removes every sandbox made so far (their links, never what they link to). */
export function removeSandboxes(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * A fresh checkout to type commands in: the repository's files linked into an empty directory,
 * so `npx reprise`, `npm start` and `npm run` work there and whatever they write stays there.
 */
export function sandbox(): string {
  const dir = mkdtempSync(join(tmpdir(), 'reprise-docs-'));
  made.push(dir);
  for (const name of readdirSync(ROOT)) {
    if (!LOCAL_STATE.has(name) && !name.startsWith('.env')) symlinkSync(join(ROOT, name), join(dir, name));
  }
  return dir;
}

/** What the `reprise` command and `npm start` run from: real files in a checkout of its own (see checkout()). */
const RUNNING_PACKAGE = new Set(['package.json', 'lib', 'dist']);

/** `from` recreated at `to`: directories made anew (their times kept, so a build stays fresh), files hard-linked. */
function linkTree(from: string, to: string): void {
  const st = statSync(from);
  if (!st.isDirectory()) {
    linkSync(from, to);
    return;
  }
  mkdirSync(to);
  for (const name of readdirSync(from)) linkTree(join(from, name), join(to, name));
  utimesSync(to, st.atime, st.mtime);
}

/**
 * A checkout of reprise in a directory of its own, as a clone is: like sandbox(), but the package
 * the `reprise` command and `npm start` run from (package.json, lib, dist) is real files there
 * (hard links, so it costs no copy), so the command recognises the directory as its own checkout
 * and reads its `.env`. A sandbox's linked package.json is not recognised: the running package is
 * the repository's, in another directory.
 */
export function checkout(): string {
  // Built first: a checkout of its own must not rebuild into files it shares with the repository.
  execFileSync(process.execPath, [join(ROOT, 'lib/cli/ensure-build.mjs')], { stdio: 'ignore' });
  const dir = mkdtempSync(join(tmpdir(), 'reprise-checkout-'));
  made.push(dir);
  for (const name of readdirSync(ROOT)) {
    if (LOCAL_STATE.has(name) || name.startsWith('.env')) continue;
    if (RUNNING_PACKAGE.has(name)) linkTree(join(ROOT, name), join(dir, name));
    else symlinkSync(join(ROOT, name), join(dir, name));
  }
  return dir;
}

/** The environment of a shell on a fresh machine, plus what the test points elsewhere. */
export function shellEnv(extra: Record<string, string>): Record<string, string> {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'USER', 'SHELL'];
  const env: Record<string, string> = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  return {
    ...env,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    ...extra,
  };
}

export interface Typed {
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves with the exit code (or the signal's name) when the shell ends. */
  readonly exited: Promise<number | string>;
  /** Waits until the output matches, the shell ends, or the time is up. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray | undefined>;
  /** Ends the shell and everything it started (its own process group). */
  stop(): Promise<void>;
}

/** Types a command into `sh` in a directory, as a user would: npm, npx and node are found on PATH. */
export function type(script: string, cwd: string, env: Record<string, string>): Typed {
  const child = spawn('sh', ['-ec', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  const changed = () => listeners.forEach((l) => l());
  child.stdout.on('data', (d: Buffer) => ((out += d.toString('utf8')), changed()));
  child.stderr.on('data', (d: Buffer) => ((err += d.toString('utf8')), changed()));
  let ended = false;
  const exited = new Promise<number | string>((resolve) =>
    child.once('close', (code, signal) => {
      ended = true;
      changed();
      resolve(code ?? signal ?? 'unknown');
    }),
  );
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  };
  return {
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (pattern, timeoutMs) =>
      new Promise((resolve) => {
        const check = () => {
          const m = pattern.exec(out) ?? pattern.exec(err);
          if (m || ended) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(m ?? undefined);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          resolve(undefined);
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
    stop: async () => {
      if (ended) return;
      killGroup('SIGTERM');
      const hard = setTimeout(() => killGroup('SIGKILL'), 3_000);
      await exited;
      clearTimeout(hard);
    },
  };
}

/** Runs a small pool of jobs at once: the machine may have two cores shared with other work. */
export async function inPool<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(size, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** The page is HTML: its form's fields come back as text. */
export const unescapeHtml = (s: string): string =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

export interface BrowserVisit {
  readonly pageUrl: string;
  readonly action: string;
  readonly manifest: Record<string, unknown>;
  /** The page GitHub's redirect led back to, and its status. */
  readonly callbackUrl: string;
  readonly status: number;
  readonly html: string;
}

/**
 * What a person does with `reprise setup`: opens the page it prints, presses the button (the form
 * posts the manifest to GitHub's web host), and lets GitHub's redirect take the browser back.
 */
export async function pressTheButton(typed: Typed, timeoutMs = 20_000): Promise<BrowserVisit> {
  const open = await typed.waitFor(/Open (http:\/\/127\.0\.0\.1:\d+\/\S*) in a browser/, timeoutMs);
  if (!open?.[1])
    throw new Error(`setup printed no page to open.\nstdout: ${typed.stdout()}\nstderr: ${typed.stderr()}`);
  const pageUrl = open[1];
  const page = await fetch(pageUrl);
  const html = await page.text();
  // A browser keeps the page's cookie, and sends it with GitHub's redirect back to the page.
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const action = unescapeHtml(/<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? '');
  const field = unescapeHtml(/name="manifest" value="([^"]+)"/.exec(html)?.[1] ?? '');
  const posted = await fetch(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ manifest: field }).toString(),
    redirect: 'manual',
  });
  const callbackUrl = posted.headers.get('location') ?? '';
  if (posted.status !== 302 || !callbackUrl) {
    throw new Error(`GitHub's web host answered ${posted.status} to the form: ${await posted.text()}`);
  }
  const back = await fetch(callbackUrl, { headers: cookie ? { cookie } : {} });
  return {
    pageUrl,
    action,
    manifest: JSON.parse(field) as Record<string, unknown>,
    callbackUrl,
    status: back.status,
    html: await back.text(),
  };
}
