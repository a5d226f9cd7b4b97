import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETAIL_TYPES, type EventEnvelope } from '../../lib/events/kinds.js';
import type { RepriseEvent } from '../../lib/events/types.js';
import { exitAnnotation, lostJob } from '../support/evidence.js';
import { workflowJobPayload } from '../support/job-events.js';
import { type LocalSetup, startLocal } from '../support/local.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';
import { shapeErrors } from './schema.js';

const SECRET = 'events-secret';

describe('decision events: the local runtime writes one JSON line per event, of the documented shape', () => {
  let local: LocalSetup;
  let dir: string;
  // The runtime's clock runs on, so the pace's next slot comes; the test moves it ahead by hand.
  let ahead = 0;
  const file = () => join(dir, 'events.jsonl');
  const lines = async () =>
    (await readFile(file(), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as EventEnvelope);
  const deliver = async (event: string, payload: unknown) =>
    post(`${local.rt.url}/webhook`, await signedDelivery(SECRET, event, payload));
  const decide = async (runId: number, attempt?: number) => {
    const payload = workflowRunPayload(local.sim, runId);
    if (attempt !== undefined) {
      Object.assign(payload, { workflow_run: local.sim.workflowRunJson(runId, attempt) });
    }
    expect((await deliver('workflow_run', payload)).status).toBeLessThan(300);
    await local.rt.poller.drain(10_000);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reprise-events-'));
    local = await startLocal({
      secret: SECRET,
      clock: () => Date.now() + ahead,
      env: { EVENTS_FILE: join(dir, 'events.jsonl'), RECONCILE_INTERVAL_SECONDS: '0' },
    });
  });
  afterAll(async () => {
    await local.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('each decision kind emits exactly one event with the documented shape', async () => {
    const { sim } = local;
    // retried, then lost again on attempt 2 and capped there (text evidence allows 2 attempts).
    const lost = sim.addRun({ repo: 'acme/events', onRerun: 'same', jobs: [lostJob('test', 'runner-1')] });
    await decide(lost.id);
    await decide(lost.id);
    // genuine_failure
    const genuine = sim.addRun({
      repo: 'acme/events',
      jobs: [{ name: 'unit', conclusion: 'failure', annotations: [exitAnnotation(1)] }],
    });
    await decide(genuine.id);
    // duplicate: the same attempt delivered again under another GUID
    await decide(genuine.id);
    // retried, then recovered: the green completion of attempt 2
    const healed = sim.addRun({ repo: 'acme/events', onRerun: 'success', jobs: [lostJob('build', 'runner-2')] });
    await decide(healed.id);
    sim.run(healed.id).complete();
    expect(
      (await deliver('workflow_run', { ...workflowRunPayload(sim, healed.id), action: 'completed' })).body.reason,
    ).toBe('outcome recorded: recovered');
    // stuck_queued: a job no runner picks up
    const waiting = sim.addRun({ repo: 'acme/events', jobs: [{ name: 'deploy', status: 'queued', conclusion: null }] });
    const job = sim.run(waiting.id).jobs[0]!;
    await deliver('workflow_job', workflowJobPayload(sim, waiting.id, job.id, 'queued'));
    ahead += 16 * 60_000;
    expect((await local.rt.reconciler.sweep()).stuckReported).toBe(1);

    const events = await lines();
    for (const e of events) {
      expect(e.source).toBe('reprise');
      expect(e['detail-type']).toBe(DETAIL_TYPES[e.detail.kind]);
      expect(e.time).toBe(e.detail.time);
      expect(shapeErrors(e.detail), JSON.stringify(e.detail)).toBe('');
    }
    // One decision event per decision the worker made, and nothing else of that kind.
    const decisions = events.filter((e) => e.detail.kind === 'decision').map((e) => e.detail);
    const made = local.outcomes.map((o) => ({
      run_id: o.message.runId,
      run_attempt: o.message.runAttempt,
      decision: o.outcome.decision,
    }));
    expect(
      decisions.map(
        (d) => d.kind === 'decision' && { run_id: d.run_id, run_attempt: d.run_attempt, decision: d.decision },
      ),
    ).toEqual(made);
    const kinds = made.map((m) => m.decision);
    expect(new Set(kinds)).toEqual(new Set(['retried', 'attempt_cap', 'genuine_failure', 'duplicate']));
    for (const kind of new Set(kinds)) {
      expect(kinds.filter((k) => k === kind).length, kind).toBe(kind === 'retried' ? 2 : 1);
    }
    const byRun = (runId: number, kind: RepriseEvent['kind']) =>
      events.map((e) => e.detail).filter((d) => d.run_id === runId && d.kind === kind);

    expect(byRun(lost.id, 'decision')).toMatchObject([
      { run_attempt: 1, decision: 'retried', rerun: true, next_attempt: 2, lost_jobs: ['test'], final_failure: false },
      { run_attempt: 2, decision: 'attempt_cap', rerun: false, next_attempt: null, final_failure: true },
    ]);
    expect(byRun(lost.id, 'rerun_outcome')).toMatchObject([{ run_attempt: 2, outcome: 'lost_again' }]);
    expect(byRun(genuine.id, 'decision')).toMatchObject([
      { decision: 'genuine_failure', final_failure: true, lost_jobs: [] },
      { decision: 'duplicate', final_failure: false },
    ]);
    expect(byRun(healed.id, 'rerun_outcome')).toMatchObject([{ run_attempt: 2, outcome: 'recovered' }]);
    expect(byRun(waiting.id, 'stuck_queued')).toMatchObject([
      { job_id: job.id, job_name: 'deploy', reprise_rerun: false, stuck_after_minutes: 15 },
    ]);
    expect(events).toHaveLength(decisions.length + 3);
  });

  it('the schema refuses an event that breaks it (a missing field, an unknown kind, an extra field)', () => {
    const ok: RepriseEvent = {
      version: 1,
      kind: 'rerun_outcome',
      time: new Date(0).toISOString(),
      installation_id: 1,
      repository: 'acme/events',
      run_id: 5,
      run_attempt: 2,
      outcome: 'recovered',
    };
    expect(shapeErrors(ok)).toBe('');
    const { outcome: _dropped, ...missing } = ok;
    expect(shapeErrors(missing)).not.toBe('');
    expect(shapeErrors({ ...ok, outcome: 'maybe' })).not.toBe('');
    expect(shapeErrors({ ...ok, kind: 'verdict' })).not.toBe('');
    expect(shapeErrors({ ...ok, extra: true })).not.toBe('');
  });
});
