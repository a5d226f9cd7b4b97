/**
 * The local runtime's configuration checked before it starts: every problem at once (missing
 * secrets and credentials, then each setting that does not parse), and one error naming them all
 * with the command that writes a working .env.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/errors.js';
import { checkConfiguration, configurationProblems } from '../../lib/local/preflight.js';

const CONFIGURED = { WEBHOOK_SECRET: 'hook-secret', GITHUB_TOKEN: 'ghp_local' } as const;

describe('configurationProblems', () => {
  it('a configured environment has none', () => {
    expect(configurationProblems(CONFIGURED)).toEqual([]);
    expect(configurationProblems({ ...CONFIGURED, PORT: '8080', WORKER_CONCURRENCY: '4' })).toEqual([]);
  });

  it('an empty environment: the webhook secret and the GitHub credentials, both at once', () => {
    expect(configurationProblems({})).toEqual([
      'WEBHOOK_SECRET is required',
      'GitHub credentials missing: set APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH), or GITHUB_TOKEN',
    ]);
  });

  it('half an App (APP_ID without its key) is named as such', () => {
    expect(configurationProblems({ WEBHOOK_SECRET: 's', APP_ID: '1' })).toEqual([
      'APP_ID is set but PRIVATE_KEY or PRIVATE_KEY_PATH is missing',
    ]);
  });

  it('every setting that does not parse, each naming its variable and value, beside the missing ones', () => {
    const problems = configurationProblems({ PORT: 'abc', WORKER_CONCURRENCY: '-3', MAX_ATTEMPTS: 'x' });
    expect(problems.slice(0, 2)).toEqual([
      'WEBHOOK_SECRET is required',
      'GitHub credentials missing: set APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH), or GITHUB_TOKEN',
    ]);
    expect(problems.slice(2).sort()).toEqual([
      'MAX_ATTEMPTS: expected a whole number from 1 to 50 (GitHub allows 50 re-runs of a run), got "x"',
      'PORT: expected a whole number from 0 to 65535, got "abc"',
      'WORKER_CONCURRENCY: expected a whole number from 1 to 100, got "-3"',
    ]);
  });

  it('an error that is not a configuration problem is thrown, not listed', () => {
    const env = new Proxy({ ...CONFIGURED } as Record<string, string>, {
      get: (target, key) => {
        if (key === 'PORT') throw new TypeError('the environment could not be read');
        return target[key as string];
      },
    });
    expect(() => configurationProblems(env)).toThrow(TypeError);
  });
});

describe('checkConfiguration', () => {
  it('passes a configured environment', () => {
    expect(() => checkConfiguration(CONFIGURED, { path: '.env', read: true })).not.toThrow();
  });

  it('throws one ConfigError listing every problem and how to write a working .env', () => {
    let thrown: unknown;
    try {
      checkConfiguration({ PORT: 'abc' }, { path: 'local.env', read: true });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toBe(
      [
        'the local runtime is not configured; in the environment and local.env:',
        '  - WEBHOOK_SECRET is required',
        '  - GitHub credentials missing: set APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH), or GITHUB_TOKEN',
        '  - PORT: expected a whole number from 0 to 65535, got "abc"',
        'To register a GitHub App and write its credentials to .env:',
        '  npx reprise setup --dotenv .env --webhook-url https://<tunnel>/webhook',
        'or write .env by hand (README.md, "Run it locally against GitHub").',
      ].join('\n'),
    );
  });

  it('says when no .env file was there to read', () => {
    expect(() => checkConfiguration({}, { path: '.env', read: false })).toThrow(
      /^the local runtime is not configured; in the environment \(no \.env here\):\n/,
    );
  });
});
