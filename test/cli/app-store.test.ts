import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { checkEnvFileWritable, envFileText, type NewApp, storeInStack, writeEnvFile } from '../../lib/cli/app-store.js';
import { CliError } from '../../lib/cli/io.js';
import { captureIo, FakeSecretsManager } from './support.js';

const APP: NewApp = {
  id: 4242,
  slug: 'reprise-acme',
  name: 'reprise acme',
  htmlUrl: 'https://github.com/apps/reprise-acme',
  pem: '-----BEGIN RSA PRIVATE KEY-----\r\nAAAA\r\nBBBB\r\n-----END RSA PRIVATE KEY-----\r\n',
  webhookSecret: 'whsec',
};

describe('app-store: the local .env', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reprise-app-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("one line a variable, the key's newlines as \\n, read back by Node's parser as the key itself", () => {
    const text = envFileText(APP, 'https://api.github.com/');
    expect(text.split('\n')[0]).toBe(
      '# GitHub App reprise-acme (https://github.com/apps/reprise-acme), written by reprise setup',
    );
    expect(text).not.toContain('GITHUB_API_URL');
    const env = parseEnv(text);
    expect(env).toEqual({
      APP_ID: '4242',
      PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY-----\nAAAA\nBBBB\n-----END RSA PRIVATE KEY-----',
      WEBHOOK_SECRET: 'whsec',
    });
  });

  it('GitHub Enterprise Server: its API URL is written too', () => {
    expect(parseEnv(envFileText(APP, 'https://ghe.example.com/api/v3')).GITHUB_API_URL).toBe(
      'https://ghe.example.com/api/v3',
    );
  });

  it('written mode 0600; an existing file is kept without --force, replaced with it', () => {
    const file = join(dir, '.env');
    writeEnvFile(file, APP, 'https://api.github.com', false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(() => checkEnvFileWritable(file, false)).toThrow(`${file} exists; pass --force to overwrite it`);
    expect(() => writeEnvFile(file, { ...APP, id: 1 }, 'https://api.github.com', false)).toThrow(CliError);
    expect(readFileSync(file, 'utf8')).toContain('APP_ID=4242');
    expect(() => checkEnvFileWritable(file, true)).not.toThrow();
    writeFileSync(file, 'old', { mode: 0o644 });
    writeEnvFile(file, { ...APP, id: 1 }, 'https://api.github.com', true);
    expect(readFileSync(file, 'utf8')).toContain('APP_ID=1');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(() => writeEnvFile(join(dir, 'no', 'such', '.env'), APP, 'https://api.github.com', false)).toThrow(
      /^cannot write .*\.env: ENOENT/,
    );
  });
});

describe("app-store: the stack's two secrets", () => {
  it('the App as JSON {appId, privateKey}, the webhook secret as is, each in the secret the stack names', async () => {
    const sm = new FakeSecretsManager(['app-secret', 'hook-secret']);
    const outputs = new Map([
      ['GitHubAppSecretName', 'app-secret'],
      ['WebhookSecretName', 'hook-secret'],
    ] as const);
    const names = await storeInStack(captureIo({}, { secretsManager: sm }), 'Runners', new Map(outputs), APP);
    expect(names).toEqual({ appSecret: 'app-secret', webhookSecret: 'hook-secret' });
    expect(JSON.parse(sm.values.get('app-secret') ?? '')).toEqual({ appId: '4242', privateKey: APP.pem });
    expect(sm.values.get('hook-secret')).toBe('whsec');
  });

  it('a stack without the secrets is refused before anything is written', async () => {
    const sm = new FakeSecretsManager(['app-secret']);
    await expect(
      storeInStack(
        captureIo({}, { secretsManager: sm }),
        'Runners',
        new Map([['GitHubAppSecretName', 'app-secret']]),
        APP,
      ),
    ).rejects.toThrow('stack "Runners" has no output WebhookSecretName');
    expect(sm.values.get('app-secret')).toBe('placeholder');
  });
});
