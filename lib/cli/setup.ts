import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { checkEnvFileWritable, exchangeManifestCode, type NewApp, storeInStack, writeEnvFile } from './app-store.js';
import { describeAwsError, requireOutput, stackOutputs, type StackOutputName } from './aws.js';
import { announceGitHub, requireCredentialSafeUrl } from './github.js';
import { CliError, type CliIo, parseCommand, printJson, println, runCommand, UsageError } from './io.js';
import { buildManifest, manifestPage, newAppUrl, resultPage } from './manifest.js';
import { sameSecret, send, serveSetupPage } from './setup-page.js';

const HELP = `reprise setup: register the GitHub App with GitHub's manifest flow and store its credentials.

Usage: reprise setup (--stack NAME | --dotenv PATH) [options]

Serves a page on 127.0.0.1, at a path of its own, with one button that posts the App manifest
to GitHub. After you confirm on GitHub, your browser is sent back here with a code, which is
exchanged for the App's id, private key and webhook secret. These are stored, never printed.
The page and its callback answer only the browser that opened the page first, and only under
the Host 127.0.0.1:PORT. GitHub's URLs must be https (http only to this machine).

Where to store:
  --stack NAME          the stack's secrets (outputs GitHubAppSecretName, WebhookSecretName);
                        the webhook URL is the output WebhookUrl
  --dotenv PATH         a .env for the local runtime (APP_ID, PRIVATE_KEY, WEBHOOK_SECRET), mode 0600
  --force               overwrite an existing --dotenv file

Options:
  --webhook-url URL     the App's webhook URL (required with --dotenv, e.g. a tunnel's …/webhook)
  --org ORG             register the App on an organisation instead of your user account
  --github-url URL      GitHub's web URL, https://HOST for GitHub Enterprise Server (default https://github.com)
  --api-url URL         REST base (default derived from --github-url, or GITHUB_API_URL)
  --report check_run    ask for checks: write, to report decisions as check runs
  --merge-queue         the default: also ask for what putting a pull request back in the merge queue
                        needs (pull_requests, contents and merge_queues: write), as merge_queue:
                        requeue, the default, does (docs/operations.md)
  --no-merge-queue      ask for none of those (a leaked App key cannot push); then set MERGE_QUEUE=rerun
                        (construct mergeQueue: 'rerun') so merge-group runs lost to a runner are re-run
                        without trying a mutation GitHub would refuse
  --name NAME           the App's name (default "reprise"; GitHub lets you change it before creating)
  --port N              port of the local page (default: a free one)
  --timeout SECONDS     how long to wait for GitHub's redirect (default 900)
  --json                print the result as JSON
  -h, --help            this help

Exit codes: 0 the App was created and stored, 1 it was not, 2 bad usage.`;

const OPTIONS = {
  stack: { type: 'string' },
  dotenv: { type: 'string' },
  force: { type: 'boolean' },
  'webhook-url': { type: 'string' },
  org: { type: 'string' },
  'github-url': { type: 'string' },
  'api-url': { type: 'string' },
  report: { type: 'string' },
  'merge-queue': { type: 'boolean' },
  'no-merge-queue': { type: 'boolean' },
  name: { type: 'string' },
  'homepage-url': { type: 'string' },
  port: { type: 'string' },
  timeout: { type: 'string' },
} as const;

const trim = (u: string): string => u.replace(/\/+$/, '');

function httpUrl(value: string, flag: string): string {
  try {
    const u = new URL(value);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('not http(s)');
  } catch {
    throw new UsageError(`${flag}: expected an http(s) URL, got "${value}"`);
  }
  return trim(value);
}

/** GitHub's web and REST URLs: github.com and api.github.com, or https://HOST and https://HOST/api/v3. */
export function githubUrls(o: { githubUrl?: string; apiUrl?: string; envApiUrl?: string }): {
  webUrl: string;
  apiUrl: string;
} {
  if (o.githubUrl) {
    const webUrl = httpUrl(o.githubUrl, '--github-url');
    const derived = new URL(webUrl).hostname === 'github.com' ? 'https://api.github.com' : `${webUrl}/api/v3`;
    const apiUrl = o.apiUrl ? httpUrl(o.apiUrl, '--api-url') : derived;
    requireCredentialSafeUrl(webUrl, '--github-url');
    requireCredentialSafeUrl(apiUrl, '--api-url');
    return { webUrl, apiUrl };
  }
  const apiFlag = o.apiUrl ? '--api-url' : 'GITHUB_API_URL';
  const apiUrl = httpUrl(o.apiUrl ?? o.envApiUrl ?? 'https://api.github.com', apiFlag);
  // The code goes to this URL, and the App's private key comes back from it.
  requireCredentialSafeUrl(apiUrl, apiFlag);
  if (apiUrl === 'https://api.github.com') return { webUrl: 'https://github.com', apiUrl };
  return { webUrl: apiUrl.endsWith('/api/v3') ? apiUrl.slice(0, -'/api/v3'.length) : new URL(apiUrl).origin, apiUrl };
}

type SetupFlags = ReturnType<typeof parseCommand<typeof OPTIONS>>['values'];

/** What the flags ask for, checked before anything is read or served. */
interface SetupRequest {
  readonly v: SetupFlags;
  readonly port: number;
  readonly timeoutMs: number;
  readonly webUrl: string;
  readonly apiUrl: string;
}

/** The flags, each checked: where to store, the page's port, the wait, GitHub's URLs. */
function setupRequest(argv: readonly string[], io: CliIo): SetupRequest {
  const { values: v } = parseCommand('setup', argv, OPTIONS);
  if (!v.stack === !v.dotenv) throw new UsageError('pass either --stack NAME or --dotenv PATH');
  if (v['merge-queue'] && v['no-merge-queue']) throw new UsageError('pass --merge-queue or --no-merge-queue, not both');
  if (v.report !== undefined && v.report !== 'check_run' && v.report !== 'log') {
    throw new UsageError(`--report: expected check_run or log, got "${v.report}"`);
  }
  const port = Number(v.port ?? 0);
  const timeoutMs = Number(v.timeout ?? 900) * 1000;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port: got "${v.port}"`);
  if (!(timeoutMs > 0)) throw new UsageError(`--timeout: expected seconds, got "${v.timeout}"`);
  const { webUrl, apiUrl } = githubUrls({
    ...(v['github-url'] && { githubUrl: v['github-url'] }),
    ...(v['api-url'] && { apiUrl: v['api-url'] }),
    ...(io.env.GITHUB_API_URL && { envApiUrl: io.env.GITHUB_API_URL }),
  });
  return { v, port, timeoutMs, webUrl, apiUrl };
}

/** Where the credentials go, checked before GitHub creates an App: the stack's outputs or a writable .env. */
async function storageTarget(
  io: CliIo,
  v: SetupFlags,
): Promise<{ outputs: Map<StackOutputName, string> | undefined; webhookUrl: string }> {
  let outputs: Map<StackOutputName, string> | undefined;
  if (v.stack) {
    outputs = await stackOutputs(io, v.stack);
    requireOutput(outputs, 'GitHubAppSecretName', v.stack);
    requireOutput(outputs, 'WebhookSecretName', v.stack);
  } else checkEnvFileWritable(v.dotenv!, v.force === true);
  const webhookUrl =
    v['webhook-url'] ?? (outputs && v.stack ? requireOutput(outputs, 'WebhookUrl', v.stack) : undefined);
  if (!webhookUrl) throw new UsageError('--webhook-url is required with --dotenv (GitHub must reach it)');
  httpUrl(webhookUrl, '--webhook-url');
  return { outputs, webhookUrl };
}

/** The new App's credentials, in the stack's secrets or the .env file; a failure says how to recover the App. */
async function storeCredentials(
  io: CliIo,
  req: SetupRequest,
  outputs: Map<StackOutputName, string> | undefined,
  app: NewApp,
): Promise<Record<string, string>> {
  const { v, apiUrl } = req;
  try {
    return v.stack
      ? { stack: v.stack, ...(await storeInStack(io, v.stack, outputs!, app)) }
      : (writeEnvFile(v.dotenv!, app, apiUrl, v.force === true), { envFile: v.dotenv! });
  } catch (err) {
    const why = err instanceof CliError ? err.message : (describeAwsError(err) ?? (err as Error).message);
    throw new CliError(
      `App ${app.id} (${app.htmlUrl}) was created but its credentials could not be stored: ${why}. ` +
        'Generate a new private key in the App settings and store it by hand, or delete the App and run setup again.',
    );
  }
}

/** The App created and where its credentials went, or why the flow ended without it. */
type SetupOutcome = { app: NewApp; stored: Record<string, string> } | Error;

/**
 * GitHub's redirect back: a code under this flow's state is exchanged once for the App, whose
 * credentials are stored; any other callback is refused.
 */
function appCallback(
  io: CliIo,
  req: SetupRequest,
  flow: { readonly state: string; pageUrl: string; readonly outputs: Map<StackOutputName, string> | undefined },
  finish: (outcome: SetupOutcome) => void,
): (url: URL, res: ServerResponse) => Promise<void> {
  let exchanging = false;
  return async (url, res) => {
    const code = url.searchParams.get('code');
    const got = url.searchParams.get('state') ?? '';
    if (!code || !sameSecret(got, flow.state)) {
      println(io.stderr, 'Refused a callback whose state does not match this setup.');
      send(res, 400, resultPage('Refused', ['The state does not match this setup.', `Start again at ${flow.pageUrl}`]));
      return;
    }
    if (exchanging) {
      send(res, 409, resultPage('Already done', ['This setup has already received its code.']));
      return;
    }
    exchanging = true;
    try {
      const app = await exchangeManifestCode(io, req.apiUrl, code);
      const stored = await storeCredentials(io, req, flow.outputs, app);
      send(
        res,
        200,
        resultPage(`GitHub App ${app.name} created`, [
          `Credentials stored in ${stored.envFile ?? `the secrets of stack ${stored.stack}`}.`,
          `Now install it on your repositories: ${app.htmlUrl}/installations/new`,
        ]),
      );
      finish({ app, stored });
    } catch (err) {
      send(res, 502, resultPage('Setup failed', [(err as Error).message]));
      finish(err as Error);
    }
  };
}

/** Serves the manifest page, tells the terminal where it is, and waits for the callback or the timeout. */
async function runManifestFlow(
  io: CliIo,
  req: SetupRequest,
  target: { outputs: Map<StackOutputName, string> | undefined; webhookUrl: string },
): Promise<SetupOutcome> {
  const { v, webUrl, timeoutMs } = req;
  const flow = { state: randomBytes(20).toString('hex'), pageUrl: '', outputs: target.outputs };
  let finish!: (r: SetupOutcome) => void;
  const done = new Promise<SetupOutcome>((r) => (finish = r));
  const onCallback = appCallback(io, req, flow, finish);
  const page = await serveSetupPage(io, req.port, (url, res) => {
    void onCallback(url, res).catch((err: Error) => finish(err));
  });
  flow.pageUrl = page.pageUrl;
  const manifest = buildManifest({
    name: v.name ?? 'reprise',
    homepageUrl: v['homepage-url'] ?? webUrl,
    webhookUrl: target.webhookUrl,
    redirectUrl: `${flow.pageUrl}callback`,
    report: v.report === 'check_run' ? 'check_run' : 'log',
    // merge_queue: requeue is the default, so its permissions are asked for unless declined.
    mergeQueue: v['no-merge-queue'] !== true,
  });
  page.setHtml(manifestPage(newAppUrl(webUrl, flow.state, v.org), manifest));
  println(io.stderr, `Open ${flow.pageUrl} in a browser on this machine and press the button to create the App`);
  println(io.stderr, `on ${v.org ? `the organisation ${v.org}` : 'your account'} at ${webUrl}. Waiting for GitHub…`);
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    done,
    new Promise<Error>((r) => {
      timer = setTimeout(() => r(new CliError(`no answer from GitHub within ${timeoutMs / 1000} s`)), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  await page.close();
  return outcome;
}

/** The App and where its credentials went, as JSON or as lines for a person. */
function printCreated(io: CliIo, json: boolean, created: Exclude<SetupOutcome, Error>, webhookUrl: string): void {
  const { app, stored } = created;
  const installUrl = `${app.htmlUrl}/installations/new`;
  if (json) {
    printJson(io, { app: { id: app.id, slug: app.slug, name: app.name, htmlUrl: app.htmlUrl }, installUrl, stored });
    return;
  }
  println(io.stdout, `GitHub App ${app.name} (id ${app.id}) created: ${app.htmlUrl}`);
  if (stored.envFile) println(io.stdout, `Credentials written to ${stored.envFile} (mode 0600).`);
  else println(io.stdout, `Credentials stored in ${stored.appSecret} and ${stored.webhookSecret}.`);
  println(io.stdout, `Webhook URL: ${webhookUrl}`);
  println(io.stdout, `Install it: ${installUrl}`);
}

/** `reprise setup`: registers the GitHub App with the manifest flow and stores its credentials, never printing them. */
export async function setup(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(
    'setup',
    HELP,
    argv,
    io,
    async () => {
      const req = setupRequest(argv, io);
      // Everything that can fail is checked before GitHub creates an App.
      const target = await storageTarget(io, req.v);
      announceGitHub(io, req.v.json === true, req.apiUrl);
      const outcome = await runManifestFlow(io, req, target);
      if (outcome instanceof Error) throw outcome;
      printCreated(io, req.v.json === true, outcome, target.webhookUrl);
      return 0;
    },
    describeAwsError,
  );
}
