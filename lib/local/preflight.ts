import { deploymentSettings, webhookSecretsFrom } from '../config/env.js';
import { credentialsFromEnv } from '../config/secrets.js';
import { fromEnv, SETTING_NAMES, settingOf } from '../config/settings-schema.js';
import { ConfigError } from '../errors.js';
import type { Env } from '../config/environment.js';

const problemOf = (check: () => unknown): string[] => {
  try {
    check();
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return [err.message];
    throw err;
  }
};

/**
 * Everything wrong with the local runtime's configuration at once, rather than the first problem
 * per start: missing secrets and credentials, then every setting whose value does not parse.
 */
export function configurationProblems(env: Env): string[] {
  const problems = [
    ...(webhookSecretsFrom(env).length === 0 ? ['WEBHOOK_SECRET is required'] : []),
    ...problemOf(() => credentialsFromEnv(env, { allowToken: true })),
  ];
  const local = SETTING_NAMES.filter((n) => settingOf(n).local && settingOf(n).env !== undefined);
  const unparsed = local.flatMap((n) => problemOf(() => fromEnv(env, n)));
  // Settings that are fine alone but not together (the text-only cap above the exact one, …).
  return [...problems, ...unparsed, ...(unparsed.length === 0 ? problemOf(() => deploymentSettings(env)) : [])];
}

/** Throws one error that lists every problem and the command that writes a working `.env`. */
export function checkConfiguration(env: Env, envFile: { readonly path: string; readonly read: boolean }): void {
  const problems = configurationProblems(env);
  if (problems.length === 0) return;
  const source = envFile.read ? `the environment and ${envFile.path}` : `the environment (no ${envFile.path} here)`;
  throw new ConfigError(
    [
      `the local runtime is not configured; in ${source}:`,
      ...problems.map((p) => `  - ${p}`),
      'To register a GitHub App and write its credentials to .env:',
      '  npx reprise setup --dotenv .env --webhook-url https://<tunnel>/webhook',
      'or write .env by hand (README.md, "Run it locally against GitHub").',
    ].join('\n'),
  );
}
