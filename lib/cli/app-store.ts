import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { putSecret, requireOutput, type StackOutputName } from './aws.js';
import { CliError, type CliIo } from './io.js';

/** What the manifest conversion hands back once: the App's identity and its secrets. */
export interface NewApp {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  readonly htmlUrl: string;
  readonly pem: string;
  readonly webhookSecret: string;
}

const DEFAULT_API = 'https://api.github.com';

/** Refuses early, before GitHub creates anything, when the file is there and `--force` is not. */
export function checkEnvFileWritable(path: string, force: boolean): void {
  if (existsSync(path) && !force) throw new CliError(`${path} exists; pass --force to overwrite it`);
}

/** The local runtime's `.env`: one line per variable, the key's newlines as `\n`, mode 0600. */
export function envFileText(app: NewApp, apiUrl: string): string {
  const lines = [
    `APP_ID=${app.id}`,
    `PRIVATE_KEY="${app.pem.trim().replace(/\r?\n/g, '\\n')}"`,
    `WEBHOOK_SECRET=${app.webhookSecret}`,
    ...(apiUrl.replace(/\/+$/, '') === DEFAULT_API ? [] : [`GITHUB_API_URL=${apiUrl}`]),
  ];
  return `# GitHub App ${app.slug} (${app.htmlUrl}), written by reprise setup\n${lines.join('\n')}\n`;
}

/** The local runtime's .env with the new App's credentials, mode 0600; an existing file only with --force. */
export function writeEnvFile(path: string, app: NewApp, apiUrl: string, force: boolean): void {
  try {
    writeFileSync(path, envFileText(app, apiUrl), { mode: 0o600, flag: force ? 'w' : 'wx' });
    chmodSync(path, 0o600);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EEXIST') throw new CliError(`${path} exists; pass --force to overwrite it`);
    throw new CliError(`cannot write ${path}: ${(err as Error).message}`);
  }
}

/** The stack's two secrets: the App as JSON `{appId, privateKey}`, the webhook secret as is. */
export async function storeInStack(
  io: CliIo,
  stackName: string,
  outputs: Map<StackOutputName, string>,
  app: NewApp,
): Promise<{ appSecret: string; webhookSecret: string }> {
  const appSecret = requireOutput(outputs, 'GitHubAppSecretName', stackName);
  const webhookSecret = requireOutput(outputs, 'WebhookSecretName', stackName);
  await putSecret(io, appSecret, JSON.stringify({ appId: String(app.id), privateKey: app.pem }));
  await putSecret(io, webhookSecret, app.webhookSecret);
  return { appSecret, webhookSecret };
}

/**
 * `POST /app-manifests/{code}/conversions`: the new App's id, key and webhook secret for the code
 * GitHub's redirect carried. The code is good once, for an hour.
 */
export async function exchangeManifestCode(io: CliIo, apiUrl: string, code: string): Promise<NewApp> {
  const url = `${apiUrl}/app-manifests/${encodeURIComponent(code)}/conversions`;
  let res: Response;
  try {
    res = await (io.fetch ?? fetch)(url, {
      method: 'POST',
      headers: { accept: 'application/vnd.github+json', 'user-agent': 'reprise-cli' },
    });
  } catch (err) {
    throw new CliError(`cannot reach GitHub: POST ${url} failed (${(err as Error).message})`);
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (res.status !== 201) {
    throw new CliError(`GitHub refused the code: POST ${url} answered ${res.status} ${String(body.message ?? '')}`);
  }
  const { id, slug, name, html_url: htmlUrl, pem, webhook_secret: webhookSecret } = body;
  if (typeof id !== 'number' || typeof pem !== 'string' || typeof htmlUrl !== 'string') {
    throw new CliError(`POST ${url} answered without the App's id, html_url or private key`);
  }
  if (typeof webhookSecret !== 'string' || webhookSecret === '') {
    throw new CliError('GitHub created the App without a webhook secret; set one in its settings, then store it');
  }
  return { id, slug: String(slug ?? ''), name: String(name ?? slug ?? ''), htmlUrl, pem, webhookSecret };
}
