import { beforeAll, describe, expect, it } from 'vitest';
import { measureRequests, type RequestsResult } from './requests.js';
import { MATRIX_SIZES } from './scenarios.js';

// Section 1 of `npm run bench -- --quick`: request counts are behaviour, not timing, so they
// hold at any simulator latency; 0 keeps the test fast.
let r: RequestsResult;
beforeAll(async () => {
  r = await measureRequests({ latencyMs: 0, quick: true });
}, 60_000);

const rowsOf = (predicate: (jobs: number) => boolean) => r.rows.filter((row) => predicate(row.jobs));

describe('bench section 1: GitHub requests per decision, reprise against the per-job pattern', () => {
  it('measures every matrix size with one, a quarter and all of its jobs lost, both patterns re-running each', () => {
    expect([...new Set(r.rows.map((row) => row.jobs))]).toEqual([...MATRIX_SIZES]);
    expect(r.rows.map((row) => `${row.jobs}/${row.lost}`)).toEqual([
      '1/1',
      '10/1',
      '10/3',
      '10/10',
      '60/1',
      '60/15',
      '60/60',
      '200/1',
      '200/50',
      '200/200',
    ]);
    for (const row of r.rows) {
      expect(row.reprise.decision).toBe('retried');
      expect(row.baseline.rerun).toBe(true);
      expect(row.reprise.requests.rerunCalls).toBe(1);
      expect(row.baseline.requests.rerunCalls).toBe(1);
    }
  });

  it('reprise makes ≤ 4 counted requests per decision at every matrix size, 200 jobs included', () => {
    for (const row of r.rows) {
      expect(row.reprise.requests.counted, `${row.jobs} jobs, ${row.lost} lost`).toBeLessThanOrEqual(4);
    }
    for (const row of rowsOf((jobs) => jobs <= 100)) expect(row.reprise.requests.counted).toBe(3);
  });

  it('the run is not read on the common path: its latest jobs answer for it', () => {
    for (const row of r.rows) expect(row.reprise.requests.runReads).toBe(0);
  });

  it("past 100 jobs only GitHub's page size adds requests: one per further 100 jobs listed; one GraphQL query reads up to 500 candidates", () => {
    for (const row of r.rows) {
      const expected = 1 + Math.ceil(row.jobs / 100) + Math.ceil(row.lost / 500);
      expect(row.reprise.requests.counted, `${row.jobs} jobs, ${row.lost} lost`).toBe(expected);
    }
  });

  it('at 60 lost jobs reprise makes at least 10× fewer requests than the per-job pattern', () => {
    const row = r.rows.find((x) => x.jobs === 60 && x.lost === 60)!;
    expect(row.baseline.requests.counted).toBe(62);
    expect(row.ratio).toBeGreaterThanOrEqual(10);
  });

  it('the per-job pattern grows with the lost jobs: a list page per 100 jobs, one call per candidate, the re-run', () => {
    for (const row of r.rows) {
      expect(row.baseline.requests.counted).toBe(Math.ceil(row.jobs / 100) + row.lost + 1);
    }
  });

  it('the repository configuration is re-read on every decision as a 304, which GitHub does not count', () => {
    for (const row of r.rows) expect(row.reprise.requests.notModified).toBe(1);
  });

  it("an installation's first decision exchanges one token, shared by its REST and GraphQL clients", () => {
    expect(r.firstDecision.requests.tokenExchanges).toBe(1);
    for (const row of r.rows) expect(row.reprise.requests.tokenExchanges).toBe(0);
  });

  it('a branch run’s decision reads the App’s delivery log once, beside the job listing, outside the counted requests', () => {
    for (const row of r.rows) expect(row.reprise.requests.deliveryLogReads).toBe(1);
  });
});
