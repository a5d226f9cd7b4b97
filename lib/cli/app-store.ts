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
