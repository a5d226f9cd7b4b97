import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/functions/handlers.js';

const deploy = readFileSync(join(PROJECT_ROOT, 'docs/deploy.md'), 'utf8');
const section = (title: string): string => {
  const start = deploy.indexOf(`\n${title}\n`);
  expect(start, `docs/deploy.md has no "${title}"`).toBeGreaterThanOrEqual(0);
  // Up to the next heading of the same level or above.
  const level = title.indexOf(' ');
  const next = deploy.slice(start + title.length + 2).search(new RegExp(`\\n#{1,${level}} `));
  return deploy.slice(start, next < 0 ? undefined : start + title.length + 2 + next);
};

describe('docs/deploy.md', () => {
  it('fills the App secret (or runs reprise setup against the stack) before installing the App', () => {
    const register = section('## Register the GitHub App');
    const setup = register.indexOf('reprise setup --stack');
    const fill = register.search(/put-secret-value[\s\\]*--secret-id "<GitHubAppSecretName>"/);
    const install = register.search(/\n\d+\. Install the App/);
    expect(setup).toBeGreaterThanOrEqual(0);
    expect(fill).toBeGreaterThanOrEqual(0);
    expect(install).toBeGreaterThan(fill);
  });

  it('the rotation section covers every function that reads a secret: worker, reconciler, intake, signal intake', () => {
    const rotation = section('### Rotating secrets');
    for (const fn of ['worker', 'reconciler', 'intake', 'signal intake']) expect(rotation).toContain(fn);
    expect(rotation).toContain('No restart');
    expect(rotation).not.toMatch(/update-function-configuration/);
  });
});
