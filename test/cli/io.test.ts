import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CliError,
  isoTime,
  nodeOwnOption,
  parseCommand,
  parseCount,
  parseSince,
  printJson,
  println,
  runCommand,
  table,
  UsageError,
  withProgress,
} from '../../lib/cli/io.js';
import { captureIo } from './support.js';

describe('io: printing', () => {
  it('a line reaches the terminal without control characters or escape sequences', () => {
    const io = captureIo({});
    println(io.stdout, 'build \u001b[31mred\u001b[0m\u0007 done');
    println(io.stdout);
    expect(io.out()).toBe('build red done\n\n');
  });

  it('JSON is printed indented, on stdout', () => {
    const io = captureIo({});
    printJson(io, { a: [1] });
    expect(io.out()).toBe('{\n  "a": [\n    1\n  ]\n}\n');
    expect(io.err()).toBe('');
  });

  it('a table pads each column to its widest cell, flattens whitespace and clips long cells', () => {
    expect(
      table(
        ['JOB', 'WHY'],
        [
          ['build', 'fine'],
          ['a\nlonger name', 'x'.repeat(12)],
        ],
        10,
      ),
    ).toBe(['JOB         WHY', 'build       fine', 'a longer …  xxxxxxxxx…'].join('\n'));
  });

  it('an ISO time to the second, or a dash', () => {
    expect(isoTime(Date.parse('2026-03-01T10:00:00.250Z'))).toBe('2026-03-01T10:00:00Z');
    expect(isoTime(undefined)).toBe('—');
  });
});

describe('io: parsing', () => {
  const now = Date.parse('2026-03-10T00:00:00Z');

  it('--since: a duration back from now, or an ISO date; anything else is a usage error', () => {
    expect(parseSince('45s', now)).toBe(now - 45_000);
    expect(parseSince('30m', now)).toBe(now - 30 * 60_000);
    expect(parseSince('2h', now)).toBe(now - 2 * 3_600_000);
    expect(parseSince(' 7d ', now)).toBe(now - 7 * 86_400_000);
    expect(parseSince('2026-03-01', now)).toBe(Date.parse('2026-03-01'));
    expect(parseSince('2026-03-01T12:00:00Z', now)).toBe(Date.parse('2026-03-01T12:00:00Z'));
    for (const bad of ['yesterday', '7w', '03/01/2026', '2026-13-45']) {
      expect(() => parseSince(bad, now)).toThrow(UsageError);
    }
    expect(() => parseSince('7w', now)).toThrow('--since: expected a duration (30m, 2h, 7d) or an ISO date, got "7w"');
  });

  it('a count is a whole number from 1, else a usage error naming the option; absent, the fallback', () => {
    expect(parseCount(undefined, 'top', 10)).toBe(10);
    expect(parseCount('3', 'top', 10)).toBe(3);
    for (const bad of ['0', '-1', '1.5', 'x', '']) expect(() => parseCount(bad, 'top', 10)).toThrow(UsageError);
    expect(() => parseCount('0', 'top', 10)).toThrow('--top: expected a whole number ≥ 1, got "0"');
  });

  it("Node's own --env-file options are refused with what to use instead", () => {
    expect(nodeOwnOption(['status', '--env-file=.env'], false)).toMatch(
      /^--env-file is Node's own option .*use --dotenv FILE for the file to read$/,
    );
    expect(nodeOwnOption(['--env-file-if-exists', 'x'], true)).toMatch(
      /^--env-file-if-exists .*use --dotenv PATH for the file to write$/,
    );
    expect(nodeOwnOption(['--env', 'x'], false)).toBeUndefined();
  });

  it('the common flags on every command; an unknown flag or a Node option is a usage error naming the help', () => {
    const { values, positionals } = parseCommand(
      'explain',
      ['acme/web#1', '--json', '--attempt', '2'],
      { attempt: { type: 'string' } },
      true,
    );
    expect(values).toMatchObject({ json: true, attempt: '2' });
    expect(positionals).toEqual(['acme/web#1']);
    expect(() => parseCommand('status', ['--nope'], {})).toThrow(
      /Unknown option '--nope'[\s\S]*Run "reprise status --help" for usage\./,
    );
    expect(() => parseCommand('status', ['--env-file=.env'], {})).toThrow(UsageError);
  });

  it('--local with no URL after it reads as an empty value: the default admin URL', () => {
    const opts = { local: { type: 'string' } } as const;
    expect(parseCommand('replay', ['--local'], opts).values.local).toBe('');
    expect(parseCommand('replay', ['--local', 'acme/web#3'], opts, true).values.local).toBe('');
    expect(parseCommand('replay', ['--local', '--json'], opts).values).toMatchObject({ local: '', json: true });
    expect(parseCommand('replay', ['--local', 'http://127.0.0.1:9'], opts).values.local).toBe('http://127.0.0.1:9');
  });
});

describe('io: running a command', () => {
  it('--help or -h prints the help and runs nothing', async () => {
    for (const flag of ['--help', '-h']) {
      const io = captureIo({});
      let ran = false;
      expect(await runCommand('x', 'usage: x\n\n', [flag], io, async () => ((ran = true), 0))).toBe(0);
      expect(io.out()).toBe('usage: x\n');
      expect(ran).toBe(false);
    }
  });

  it('a CliError is one line with its exit code; a usage error is 2; any other fault is described, or its message', async () => {
    const run = async (err: unknown, describe?: (e: unknown) => string | undefined) => {
      const io = captureIo({});
      const code = await runCommand('x', 'h', [], io, () => Promise.reject(err), describe);
      return [code, io.err()];
    };
    expect(await run(new CliError('bad thing'))).toEqual([1, 'reprise x: bad thing\n']);
    expect(await run(new CliError('other', 3))).toEqual([3, 'reprise x: other\n']);
    expect(await run(new UsageError('no args'))).toEqual([2, 'reprise x: no args\n']);
    expect(await run(new Error('boom'), () => 'described')).toEqual([1, 'reprise x: described\n']);
    expect(await run(new Error('boom'), () => undefined)).toEqual([1, 'reprise x: boom\n']);
    expect(await run('a string')).toEqual([1, 'reprise x: a string\n']);
  });
});

describe('io: progress', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('work done within a second shows nothing', async () => {
    vi.useFakeTimers();
    const io = captureIo({});
    const work = withProgress(io, 'reading', async () => {
      await vi.advanceTimersByTimeAsync(999);
      return 7;
    });
    expect(await work).toBe(7);
    expect(io.err()).toBe('');
  });

  it('longer work says what it does after a second, and how long it took; a failure still says so', async () => {
    vi.useFakeTimers();
    const io = captureIo({});
    const work = withProgress(io, 'reading', async () => {
      await vi.advanceTimersByTimeAsync(2_500);
      throw new Error('late');
    });
    await expect(work).rejects.toThrow('late');
    expect(io.err()).toBe('reading…\nreading: 2.5 s\n');
  });
});
