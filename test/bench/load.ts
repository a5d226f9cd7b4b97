/** Installations, completed runs and signed deliveries, posted to a runtime's `/webhook`. */
import type { GitHubSimulator } from '../sim/index.js';
import { post, type SignedDelivery, signedDelivery, workflowRunPayload } from '../support/webhooks.js';
import { until } from './format.js';
import { matrixJobs } from './scenarios.js';

export const WEBHOOK_SECRET = 'bench-webhook-secret';

export interface Tenant {
  readonly installationId: number;
  readonly repo: string;
}

export interface Delivery extends SignedDelivery {
  readonly guid: string;
  readonly runId: number;
}

export type Answer = { status: number; body: Record<string, unknown> };

export class LoadGenerator {
  private readonly tenants = new Map<number, Tenant>();
  private seq = 0;
  /** Where the runtime listens; set once it has started. */
  webhookUrl = '';

  constructor(readonly sim: GitHubSimulator) {}

  /** Installation `i`: one organisation with one repository holding a `.github/reprise.yml`. */
  tenant(i: number): Tenant {
    let t = this.tenants.get(i);
    if (!t) {
      const account = `org-${i}`;
      t = { installationId: 50_000 + i, repo: `${account}/service` };
      this.sim.addInstallation({ id: t.installationId, account });
      this.sim.setRepoFile(t.repo, '.github/reprise.yml', 'max_attempts: 3\n');
      this.tenants.set(i, t);
    }
    return t;
  }

  /** A completed run of 10 jobs with one lost, and its signed delivery (signing is the sender's cost). */
  async delivery(t: Tenant, guid?: string): Promise<Delivery> {
    const seq = ++this.seq;
    const run = this.sim.addRun({ repo: t.repo, jobs: matrixJobs(10, 1, seq) });
    const g = guid ?? `bench-${run.id}-${seq}`;
    const payload = workflowRunPayload(this.sim, run.id, t.installationId);
    return { ...(await signedDelivery(WEBHOOK_SECRET, 'workflow_run', payload, g)), guid: g, runId: run.id };
  }

  post(d: Delivery): Promise<Answer> {
    return post(this.webhookUrl, d);
  }

  /** Posts delivery `i` at `start + i * intervalMs` and returns every answer. */
  async stream(ds: readonly Delivery[], intervalMs: number): Promise<Answer[]> {
    const start = performance.now();
    const answers: Promise<Answer>[] = [];
    for (const [i, d] of ds.entries()) {
      await until(start + i * intervalMs);
      answers.push(this.post(d));
    }
    return Promise.all(answers);
  }
}
