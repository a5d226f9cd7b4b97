/** terraform-aws-github-runner and similar fleets end runner names with the EC2 instance id. */
const INSTANCE_SUFFIX = /(i-[0-9a-f]{8,17})$/;

export const instanceIdOf = (runnerName: string): string | undefined => INSTANCE_SUFFIX.exec(runnerName)?.[1];

/** Every key under which a signal for this runner may have been recorded. */
export function runnerKeysFor(runnerName: string | null): string[] {
  if (!runnerName) return [];
  const keys = [runnerName];
  const id = instanceIdOf(runnerName);
  if (id && id !== runnerName) keys.push(id);
  return keys;
}
