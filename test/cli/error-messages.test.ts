import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../lib/cli/main.js';
import { APP_ID, testPrivateKey } from '../support/harness.js';
import { captureIo } from './support.js';

const BIN = join(import.meta.dirname, '../../lib/cli/bin.mjs');

describe('a GitHub that does not answer', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // Takes the connection and never answers: the request's own timeout ends it.
    server = createServer(() => undefined);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('a GitHub timeout names the full URL and a hint, as connection-refused does', async () => {
    const io = captureIo({ APP_ID, PRIVATE_KEY: testPrivateKey(), GITHUB_API_URL: url });
    expect(await main(['explain', 'acme/web#12'], io)).toBe(1);
    expect(io.err()).toContain(`GitHub did not answer GET ${url}/repos/acme/web/installation within 5000 ms`);
    expect(io.err()).toContain('check GITHUB_API_URL');
    expect(io.err()).not.toContain('{owner}');
  });
});

describe('AWS without credentials', () => {
  const home = mkdtempSync(join(tmpdir(), 'reprise-no-aws-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('"AWS refused the credentials" is not said when no credentials were found', async () => {
    // The SDK's own provider chain, on a machine with no profile, no keys and no instance role.
    const failed = await promisify(execFile)(process.execPath, [BIN, 'decisions', '--stack', 'Runners'], {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: home, AWS_REGION: 'eu-west-1', AWS_EC2_METADATA_DISABLED: 'true' },
      timeout: 60_000,
    }).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 1 });
    const stderr = (failed as { stderr: string }).stderr;
    expect(stderr).toContain('reprise decisions: no AWS credentials found');
    expect(stderr).toContain('set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
    expect(stderr).not.toContain('refused');
  });
});
