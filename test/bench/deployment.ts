/** What the deployed stack configures, read from a synthesized template rather than restated here. */
import { resourcesOf, synthReprise } from '../infra/synth.js';

export interface DeployedFunction {
  readonly memoryMb: number;
  readonly architecture: string;
  readonly timeoutSeconds: number;
}

export interface Deployment {
  /** By the function's logical id prefix: Intake, Worker, Ec2Signal, SignalIntake, … */
  readonly functions: Readonly<Record<string, DeployedFunction>>;
  readonly workerBatchSize: number;
  readonly workerMaxConcurrency: number;
}

export function readDeployment(): Deployment {
  const { template } = synthReprise();
  const functions: Record<string, DeployedFunction> = {};
  for (const [id, r] of Object.entries(resourcesOf(template, 'AWS::Lambda::Function'))) {
    const m = /^Reprise(\w+?)Function/.exec(id);
    const p = r.Properties ?? {};
    if (!m || typeof p.MemorySize !== 'number') continue;
    functions[m[1]!] = {
      memoryMb: p.MemorySize,
      architecture: ((p.Architectures as string[] | undefined) ?? ['x86_64'])[0]!,
      timeoutSeconds: Number(p.Timeout ?? 3),
    };
  }
  const mappings = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping'));
  const sqs = mappings.find((m) => (m.Properties?.ScalingConfig as object | undefined) !== undefined) ?? mappings[0];
  const props = sqs?.Properties ?? {};
  return {
    functions,
    workerBatchSize: Number(props.BatchSize ?? 10),
    workerMaxConcurrency: Number(
      (props.ScalingConfig as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency ?? 5,
    ),
  };
}
