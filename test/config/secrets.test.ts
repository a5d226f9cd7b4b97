import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appSecretFix,
  credentialsFromEnv,
  parseAppSecret,
  parseRotatingSecret,
  privateKeyFrom,
  rebuiltOnRotation,
} from '../../lib/config/secrets.js';
import { ConfigError } from '../../lib/errors.js';
import { simAppPrivateKey } from '../sim/index.js';

const PEM = simAppPrivateKey();
const oneLine = PEM.replace(/\n/g, '\\n');

describe('privateKeyFrom', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reprise-secrets-'));
    await writeFile(join(dir, 'app.pem'), PEM);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('PRIVATE_KEY with \\n escapes (a one-line .env) is the PEM with its line breaks', () => {
    expect(privateKeyFrom({ PRIVATE_KEY: oneLine })).toBe(PEM);
  });

  it('PRIVATE_KEY_PATH is read from its file; PRIVATE_KEY wins when both are set', () => {
    expect(privateKeyFrom({ PRIVATE_KEY_PATH: join(dir, 'app.pem') })).toBe(PEM);
    expect(privateKeyFrom({ PRIVATE_KEY: 'inline', PRIVATE_KEY_PATH: join(dir, 'app.pem') })).toBe('inline');
  });

  it('a path that cannot be read is a ConfigError naming the path; neither set is undefined', () => {
    const missing = join(dir, 'missing.pem');
    expect(() => privateKeyFrom({ PRIVATE_KEY_PATH: missing })).toThrow(
      new RegExp(`^PRIVATE_KEY_PATH: cannot read ${missing}`),
    );
    expect(privateKeyFrom({})).toBeUndefined();
  });
});

describe('credentialsFromEnv', () => {
  it('APP_ID and a PEM key are App credentials', () => {
    expect(credentialsFromEnv({ APP_ID: '123', PRIVATE_KEY: oneLine }, { allowToken: true })).toEqual({
      kind: 'app',
      appId: '123',
      privateKey: PEM,
    });
  });

  it('the App wins over a token; a token alone serves only where a token will do', () => {
    const env = { APP_ID: '123', PRIVATE_KEY: PEM, GITHUB_TOKEN: 'ghp_x' };
    expect(credentialsFromEnv(env, { allowToken: true }).kind).toBe('app');
    expect(credentialsFromEnv({ GITHUB_TOKEN: 'ghp_x' }, { allowToken: true })).toEqual({
      kind: 'token',
      token: 'ghp_x',
    });
    expect(() => credentialsFromEnv({ GITHUB_TOKEN: 'ghp_x' }, { allowToken: false })).toThrow(
      /GITHUB_TOKEN cannot call the \/app endpoints/,
    );
  });

  it('each missing or broken part is named', () => {
    expect(() => credentialsFromEnv({ APP_ID: '123' }, { allowToken: true })).toThrow(
      'APP_ID is set but PRIVATE_KEY or PRIVATE_KEY_PATH is missing',
    );
    expect(() => credentialsFromEnv({}, { allowToken: true })).toThrow(/^GitHub credentials missing/);
    expect(() => credentialsFromEnv({ APP_ID: 'my-app', PRIVATE_KEY: PEM }, { allowToken: true })).toThrow(
      `APP_ID must be the App's number, got "my-app"`,
    );
    expect(() => credentialsFromEnv({ APP_ID: '123', PRIVATE_KEY: 'not a key' }, { allowToken: true })).toThrow(
      /^PRIVATE_KEY is not a PEM private key .*; use the \.pem file GitHub issued for App 123$/,
    );
  });
});

describe('parseRotatingSecret', () => {
  it('a plain secret is itself, trimmed', () => {
    expect(parseRotatingSecret(' s3cret \n', 'WEBHOOK_SECRET')).toEqual(['s3cret']);
  });

  it('JSON during a rotation: the current secret, then the previous one', () => {
    expect(parseRotatingSecret('{"secret":"new","previous":"old"}', 'S')).toEqual(['new', 'old']);
    expect(parseRotatingSecret('{"secret":"new"}', 'S')).toEqual(['new']);
    expect(parseRotatingSecret('{"secret":"new","previous":""}', 'S')).toEqual(['new']);
  });

  it.each([
    ['', 'S: the secret is empty'],
    ['{not json', 'S: looks like JSON but does not parse'],
    ['{"previous":"old"}', 'S: "secret" is missing'],
    ['{"secret":""}', 'S: "secret" is missing'],
    ['{"secret":"x","previous":1}', 'S: "previous" must be a string'],
  ])('%j is refused: %s', (value, message) => {
    expect(() => parseRotatingSecret(value, 'S')).toThrow(new ConfigError(message));
  });
});

describe('parseAppSecret', () => {
  it('JSON with the App id (text or number) and its PEM', () => {
    expect(parseAppSecret(JSON.stringify({ appId: 42, privateKey: PEM }), 'app')).toEqual({
      kind: 'app',
      appId: '42',
      privateKey: PEM,
    });
  });

  it('a token for trials', () => {
    expect(parseAppSecret('{"token":"ghp_x"}', 'app')).toEqual({ kind: 'token', token: 'ghp_x' });
  });

  it('what is wrong is named by the secret and the field', () => {
    expect(() => parseAppSecret('appId=1', 'reprise/app')).toThrow(
      'reprise/app: expected JSON {"appId": "…", "privateKey": "…"}',
    );
    expect(() => parseAppSecret('{"privateKey":"x"}', 'reprise/app')).toThrow(
      `reprise/app: "appId" must be the App's number, got null`,
    );
    expect(() => parseAppSecret('{"appId":"1","privateKey":"x"}', 'reprise/app')).toThrow(
      /^reprise\/app: "privateKey" is not a PEM private key/,
    );
  });

  it('the fix names the secret to put the JSON into', () => {
    expect(appSecretFix('reprise/app')).toContain('--secret-id reprise/app');
  });
});

describe('rebuiltOnRotation', () => {
  it('builds once per secret value: an unchanged secret keeps what was built, a rotated one builds again', async () => {
    let secret = 'one';
    const built: string[] = [];
    const get = rebuiltOnRotation(
      async () => secret,
      (s) => (built.push(s), { s }),
    );
    const first = await get();
    expect(await get()).toBe(first);
    secret = 'two';
    expect(await get()).toEqual({ s: 'two' });
    expect(built).toEqual(['one', 'two']);
  });

  it('a failed read or build fails that call only; the next call reads past the cache', async () => {
    const fresh: boolean[] = [];
    let answer: () => string = () => {
      throw new Error('secrets manager down');
    };
    const get = rebuiltOnRotation(
      async (f) => (fresh.push(f), answer()),
      (s) => {
        if (s === 'bad') throw new Error('bad secret');
        return s;
      },
    );
    await expect(get()).rejects.toThrow('secrets manager down');
    answer = () => 'bad';
    await expect(get()).rejects.toThrow('bad secret');
    answer = () => 'good';
    expect(await get()).toBe('good');
    expect(await get()).toBe('good');
    expect(fresh).toEqual([false, true, true, false]);
  });
});
