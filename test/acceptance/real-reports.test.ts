/**
 * The corpus of real reports (test/fixtures/real-reports) once through the compiled runtime, as
 * `npm start` runs it: real HTTP, the embedded queue, the GitHub simulator. Each report is one red
 * run whose failed job carries the report's text where the report found it (annotations, or
 * `##[error]` lines of the job log). Re-runs are counted from the POSTs the simulator receives:
 * every infrastructure report's run is re-run, no genuine or cancelled one is.
 */
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubSimulator, type SimJobSpec } from '../sim/index.js';
import { type CompiledRuntime, startCompiledRuntime } from '../support/compiled-runtime.js';
import { errorLine } from '../support/evidence.js';
import { ECHO, mustRerun, type Report, REPORTS, rowName, SCORED } from '../fixtures/real-reports/corpus.js';

const INSTALLATION = 9800;
const ORG = 'reports-org';
/** A repository whose file turns platform failures off. */
const LEAVE_REPO = `${ORG}/platform-leave`;

interface DecisionLine {
  readonly run_id: number;
  readonly decision: string;
  readonly lost_job_evidence?: readonly string[];
}

/** The failed job the report describes: its text as an annotation, or as error lines of its log. */
function jobOf(r: Report): SimJobSpec {
  const failures = (r.where === 'annotation' ? r.messages : r.conclusion === 'cancelled' ? [ECHO] : []).map(
    (message) => ({ level: 'failure' as const, message }),
  );
  const warnings = (r.where === 'annotation' ? (r.warnings ?? []) : []).map((message) => ({
    level: 'warning' as const,
    message,
  }));
  const annotations = [...warnings, ...failures];
  const log = r.where === 'log' ? `${r.messages.map((m) => errorLine(m)).join('\n')}\n` : undefined;
  return {
    name: r.id.slice(0, 100),
    conclusion: r.conclusion,
    runnerName: 'runner-of-the-report',
    annotations,
    ...(log !== undefined && { log }),
  };
}

describe('the corpus of real reports through the compiled runtime (npm start, real HTTP, the simulator)', () => {
  let sim: GitHubSimulator;
  let rt: CompiledRuntime;
  const events = join(tmpdir(), `reprise-real-reports-${process.pid}-${Date.now()}.jsonl`);
  const runOf = new Map<string, number>();
  const leaveRuns: number[] = [];
  let decisions = new Map<number, DecisionLine>();

  const readDecisions = (): Map<number, DecisionLine> => {
    let text: string;
    try {
      text = readFileSync(events, 'utf8');
    } catch {
      return new Map();
    }
    const lines = text
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { detail?: DecisionLine & { kind?: string } }).detail)
      .filter((d): d is DecisionLine & { kind?: string } => d?.kind === 'decision');
    return new Map(lines.map((d) => [d.run_id, d]));
  };

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    sim.addInstallation({ id: INSTALLATION, account: ORG });
    sim.setRepoFile(LEAVE_REPO, '.github/reprise.yml', 'platform_errors: leave\n');
    for (const r of REPORTS) {
      // Each report's run is its branch's head: none is superseded by another report's run.
      const run = sim.addRun({
        repo: `${ORG}/app`,
        headBranch: `report-${r.id}`,
        jobs: [{ name: 'build', conclusion: 'success' }, jobOf(r)],
      });
      runOf.set(r.id, run.id);
      // Every scored platform failure once more, in the repository that turned them off.
      if (r.family === 'platform' && mustRerun(r)) {
        leaveRuns.push(sim.addRun({ repo: LEAVE_REPO, headBranch: `leave-${r.id}`, jobs: [jobOf(r)] }).id);
      }
    }
    rt = await startCompiledRuntime(sim, {
      EVENTS_FILE: events,
      PACE_PER_MINUTE: '600',
      PACE_PER_HOUR: '0',
      WRITE_SPACING_MS: '20',
    });
    const all = [...runOf.values(), ...leaveRuns];
    for (let i = 0; i < all.length; i += 20) {
      const statuses = await Promise.all(
        all.slice(i, i + 20).map((id) => rt.deliver(sim, id, INSTALLATION, `real-report-${id}`)),
      );
      expect(statuses.every((s) => s === 202)).toBe(true);
    }
    // Every run decided: the events file holds one decision for each.
    const deadline = Date.now() + 150_000;
    while (Date.now() < deadline) {
      decisions = readDecisions();
      if (all.every((id) => decisions.has(id))) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(
      all.filter((id) => !decisions.has(id)),
      rt.tail(),
    ).toEqual([]);
  }, 240_000);

  afterAll(async () => {
    await rt?.stop();
    await sim?.close();
    rmSync(events, { force: true });
  });

  const posts = (r: Report): number => sim.rerunTally(runOf.get(r.id)!).received;

  it.each(SCORED.map((r) => [rowName(r), r] as const))('%s', (_name, r) => {
    const d = decisions.get(runOf.get(r.id)!);
    if (mustRerun(r)) {
      expect(posts(r), `${r.id}: ${d?.decision}`).toBeGreaterThanOrEqual(1);
      expect(sim.rerunTally(runOf.get(r.id)!).accepted).toBe(1);
    } else {
      expect(posts(r), `${r.id}: ${d?.decision}`).toBe(0);
    }
  });

  it('every scored infrastructure report re-run, no genuine or cancelled one: recall and precision 100 %', () => {
    const infra = SCORED.filter(mustRerun);
    const leave = SCORED.filter((r) => !mustRerun(r));
    expect(infra.filter((r) => posts(r) === 0).map((r) => r.id)).toEqual([]);
    expect(leave.filter((r) => posts(r) > 0).map((r) => r.id)).toEqual([]);
  });

  it('the decision events name the platform family for GitHub’s platform failures', () => {
    for (const r of SCORED.filter((x) => x.family === 'platform')) {
      expect(decisions.get(runOf.get(r.id)!)?.lost_job_evidence, r.id).toEqual(['platform']);
    }
  });

  it('platform_errors: leave in the repository file: the same platform failures get no POST, decided no_infra_evidence', () => {
    expect(leaveRuns.length).toBeGreaterThan(10);
    for (const id of leaveRuns) {
      expect(sim.rerunTally(id).received).toBe(0);
      expect(decisions.get(id)?.decision).toBe('no_infra_evidence');
    }
  });
});
