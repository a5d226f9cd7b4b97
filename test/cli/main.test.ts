import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { COMMANDS, main } from '../../lib/cli/main.js';
import { captureIo } from './support.js';

const run = promisify(execFile);

describe('the reprise command', () => {
  it('the entry works as a process: npx tsx lib/cli/main.ts --help, and the bin shim lib/cli/bin.mjs', async () => {
    const [viaTsx, viaBin] = await Promise.all([
      run('npx', ['tsx', 'lib/cli/main.ts', '--help'], { timeout: 30_000 }),
      run(process.execPath, ['lib/cli/bin.mjs', 'replay', '--help'], { timeout: 30_000 }),
    ]);
    expect(viaTsx.stdout).toContain('Usage: reprise <command> [options]');
    for (const name of Object.keys(COMMANDS)) expect(viaTsx.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    expect(viaBin.stdout).toContain('Usage: reprise replay <delivery-guid>');
  });

  it('a failing command exits non-zero as a process', async () => {
    // From another directory, so no .env of the repository is read.
    const failed = await run(process.execPath, [resolve('lib/cli/bin.mjs'), 'explain', 'acme/x', '1'], {
      timeout: 30_000,
      cwd: tmpdir(),
      env: { PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_TOKEN: '' },
    }).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toContain('reprise explain: GitHub credentials missing');
  });

  it(`the argument handling as a process on the installed Node (${process.version}), which devEngines supports`, async () => {
    const { devEngines } = JSON.parse(readFileSync('package.json', 'utf8')) as {
      devEngines: { runtime: { version: string } };
    };
    const semver = createRequire(import.meta.url)('semver') as { satisfies(v: string, r: string): boolean };
    expect(semver.satisfies(process.version, devEngines.runtime.version)).toBe(true);

    const dir = mkdtempSync(join(tmpdir(), 'reprise-argv-'));
    writeFileSync(join(dir, 'present.env'), 'APP_ID=1\n');
    const bin = (args: string[]) =>
      run(process.execPath, [resolve('lib/cli/bin.mjs'), ...args], {
        timeout: 30_000,
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
      }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
    const [missing, old, unknown] = await Promise.all([
      // A --dotenv file that does not exist yet reaches reprise: its own check of the next option answers.
      bin(['setup', '--dotenv', 'missing.env', '--webhook-url', 'not-a-url']),
      // Node reads --env-file itself; when the file is there the process runs and reprise refuses it.
      bin(['setup', '--env-file', 'present.env', '--webhook-url', 'https://h.example.com/webhook']),
      bin(['setup', '--no-such-option']),
    ]);
    rmSync(dir, { recursive: true, force: true });
    expect(missing).toMatchObject({ code: 2 });
    expect(missing.stderr).toContain('reprise setup: --webhook-url: expected an http(s) URL, got "not-a-url"');
    expect(old).toMatchObject({ code: 2 });
    expect(old.stderr).toContain("--env-file is Node's own option");
    expect(old.stderr).toContain('use --dotenv PATH');
    expect(unknown).toMatchObject({ code: 2 });
    expect(unknown.stderr).toContain('Run "reprise setup --help" for usage.');
  });

  it.each(Object.keys(COMMANDS))('reprise %s --help prints its usage and exits 0', async (name) => {
    const io = captureIo({});
    expect(await main([name, '--help'], io)).toBe(0);
    expect(io.out()).toContain(`Usage: reprise ${name}`);
    expect(io.out()).toContain('--json');
    const viaHelp = captureIo({});
    expect(await main(['help', name], viaHelp)).toBe(0);
    expect(viaHelp.out()).toBe(io.out());
  });

  it.each([
    [['frobnicate'], 'unknown command "frobnicate"'],
    [[], 'Usage: reprise <command>'],
    [['status', '--no-such-flag'], 'Run "reprise status --help" for usage.'],
  ])('bad usage %j exits 2 with "%s" on stderr', async (argv, message) => {
    const io = captureIo({});
    expect(await main(argv, io)).toBe(2);
    expect(io.err()).toContain(message);
  });
});
