import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
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
