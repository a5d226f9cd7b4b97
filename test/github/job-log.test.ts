import { describe, expect, it } from 'vitest';
import { LogHostError, RequestTimeoutError } from '../../lib/errors.js';
import { errorLines, hostAllowed, readJobLog, readLogAt } from '../../lib/github/job-log.js';
import type { SimJobSpec } from '../sim/index.js';
import { errorLine, exitLog, SHUTDOWN_LOG, TEXT } from '../support/evidence.js';
import { MemoryLog } from '../support/memory-log.js';
import { type SimRepo, simRepoForTests } from './sim-repo.js';

describe('hostAllowed', () => {
  it('an exact host, or a subdomain of a *. pattern, whatever the case', () => {
    const allow = ['pipelines.actions.githubusercontent.com', '*.blob.core.windows.net'];
    expect(hostAllowed('Pipelines.Actions.GithubUserContent.com', allow)).toBe(true);
    expect(hostAllowed('acct.blob.core.windows.net', allow)).toBe(true);
    expect(hostAllowed('a.b.blob.core.windows.net', allow)).toBe(true);
  });

  it('not the bare domain of a *. pattern, nor a host that only ends like it', () => {
    const allow = ['*.blob.core.windows.net', 'logs.example'];
    expect(hostAllowed('blob.core.windows.net', allow)).toBe(false);
    expect(hostAllowed('evilblob.core.windows.net', allow)).toBe(false);
    expect(hostAllowed('evil-logs.example', allow)).toBe(false);
    expect(hostAllowed('logs.example.evil', allow)).toBe(false);
  });
});

describe('errorLines', () => {
  it('the text after each ##[error] marker, trimmed', () => {
    const text = ['x', errorLine('first'), 'y', '2026 ##[error]  second  ', ''].join('\n');
    expect(errorLines(text, { cutStart: false, cutEnd: false })).toEqual(['first', 'second']);
  });

  it('a line cut at either edge of the window is dropped', () => {
    const text = ['##[error]cut at the start', '##[error]whole', '##[error]cut at the e'].join('\r\n');
    expect(errorLines(text, { cutStart: true, cutEnd: true })).toEqual(['whole']);
    expect(errorLines(text, { cutStart: false, cutEnd: true })).toEqual(['cut at the start', 'whole']);
  });
});

describe('readLogAt: the log host', () => {
  const opts = { allowHosts: ['logs.example'], windowBytes: 64, log: new MemoryLog() };
  const answering =
    (...responses: Response[]) =>
    async (): Promise<Response> =>
      responses.shift() ?? new Response('', { status: 500 });

  it('a host outside the allow-list is never asked, and the refusal is logged', async () => {
    const log = new MemoryLog();
    let asked = 0;
    const got = await readLogAt('https://evil.example/log', 7, { ...opts, log }, async () => {
      asked++;
      return new Response('');
    });
    expect(got).toBe('unreadable');
    expect(asked).toBe(0);
    expect(log.lines).toEqual([
      {
        level: 'warn',
        message: 'job log redirect refused: host not in the allow-list',
        job_id: 7,
        host: 'evil.example',
      },
    ]);
  });

  it('a 5xx or 429 from the host is a LogHostError, never a verdict', async () => {
    for (const status of [429, 500, 503]) {
      await expect(
        readLogAt('https://logs.example/l', 7, opts, answering(new Response('busy', { status }))),
      ).rejects.toBeInstanceOf(LogHostError);
    }
  });

  it('404 and 410 are missing; another status is unreadable', async () => {
    expect(await readLogAt('https://logs.example/l', 7, opts, answering(new Response('', { status: 404 })))).toBe(
      'missing',
    );
    expect(await readLogAt('https://logs.example/l', 7, opts, answering(new Response('', { status: 410 })))).toBe(
      'missing',
    );
    expect(await readLogAt('https://logs.example/l', 7, opts, answering(new Response('', { status: 403 })))).toBe(
      'unreadable',
    );
  });

  it('a host that ignores the range (200): the head and tail of the whole body, the cut lines dropped', async () => {
    const body = ['##[error]head line', 'x'.repeat(200), '##[error]tail line'].join('\n');
    expect(await readLogAt('https://logs.example/l', 7, opts, answering(new Response(body, { status: 200 })))).toEqual({
      errors: ['head line', 'tail line'],
    });
  });
});

describe('readJobLog (simulator)', () => {
  let gh: SimRepo;
  simRepoForTests((r) => (gh = r));

  const log = new MemoryLog();
  const opts = { allowHosts: ['127.0.0.1'], windowBytes: 8 * 1024 * 1024, log };
  const calls = () => gh.requests();
  const jobWith = (spec: Partial<SimJobSpec>): number => {
    const run = gh.sim.addRun({ repo: gh.repo, jobs: [{ name: 'unit', conclusion: 'failure', ...spec }] });
    return gh.sim.run(run.id).jobs[0]!.id;
  };
  const host = { timeout: { ms: 60_000, signal: (ms: number) => AbortSignal.timeout(ms) }, fetch };

  it("follows GitHub's redirect to the log host and reads the ##[error] lines", async () => {
    const jobId = jobWith({ log: SHUTDOWN_LOG });
    const got = await readJobLog(calls(), jobId, opts, host);
    expect(got).toEqual({ errors: expect.arrayContaining([TEXT.shutdown]) });
    expect(gh.sim.count('GET', new RegExp(`/actions/jobs/${jobId}/logs$`))).toBe(1);
  });

  it('a log of several windows: the head and the tail, two range reads', async () => {
    const filler = `${'.'.repeat(100)}\n`.repeat(100);
    const jobId = jobWith({ log: `${exitLog(3)}${filler}${exitLog(4)}` });
    const small = { ...opts, windowBytes: 2048 };
    expect(await readJobLog(calls(), jobId, small, host)).toEqual({
      errors: [TEXT.exitCode(3), TEXT.exitCode(4)],
    });
  });

  it('a log GitHub no longer has (404, 410) is missing; one it will not show (403) is unreadable', async () => {
    expect(await readJobLog(calls(), jobWith({ log: null }), opts, host)).toBe('missing');
    expect(await readJobLog(calls(), jobWith({ log: { status: 410 } }), opts, host)).toBe('missing');
    const jobId = jobWith({ log: exitLog() });
    gh.sim.injectFault({ method: 'GET', path: /\/logs$/, status: 403, message: 'Must have admin rights' });
    expect(await readJobLog(calls(), jobId, opts, host)).toBe('unreadable');
  });

  it('a log host that does not answer within the timeout is a RequestTimeoutError naming the job', async () => {
    const jobId = jobWith({ log: exitLog() });
    const stalled = {
      // The signal is already aborted: the log host is given no time at all.
      timeout: { ms: 5, signal: () => AbortSignal.abort() },
      fetch,
    };
    await expect(readJobLog(calls(), jobId, opts, stalled)).rejects.toThrow(
      new RequestTimeoutError(`the log host did not answer for job ${jobId} within 5 ms`),
    );
  });

  it('a redirect to a host outside the allow-list is not followed', async () => {
    const jobId = jobWith({ log: exitLog() });
    expect(await readJobLog(calls(), jobId, { ...opts, allowHosts: ['logs.example'] }, host)).toBe('unreadable');
  });
});
