/** terraform-aws-github-runner and similar fleets end runner names with the EC2 instance id. */
const INSTANCE_SUFFIX = /(i-[0-9a-f]{8,17})$/;

/**
 * The keys a runner's signals are recorded under, from its name: the name itself, the instance id
 * at its end, and what each configured pattern (a runner preset's) captures from it.
 */
export class RunnerKeys {
  private readonly patterns: readonly RegExp[];

  constructor(namePatterns: readonly string[] = []) {
    this.patterns = [INSTANCE_SUFFIX, ...namePatterns.map((p) => new RegExp(p))];
  }

  for(runnerName: string | null): string[] {
    if (!runnerName) return [];
    const keys = new Set([runnerName]);
    for (const p of this.patterns) {
      const m = p.exec(runnerName);
      const key = m?.[1] ?? m?.[0];
      if (key) keys.add(key);
    }
    return [...keys];
  }
}
