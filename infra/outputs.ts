import { CfnOutput } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { STACK_OUTPUT_NAMES, stackOutputDescription, type StackOutputName } from '../lib/config/stack-outputs.js';

/** One `CfnOutput` per name under `scope`, each described with its tag (lib/config/stack-outputs.ts). */
export function addStackOutputs(
  scope: Construct,
  values: Readonly<Record<StackOutputName, string>>,
): Record<StackOutputName, CfnOutput> {
  return Object.fromEntries(
    STACK_OUTPUT_NAMES.map((name) => [
      name,
      new CfnOutput(scope, name, { value: values[name], description: stackOutputDescription(name) }),
    ]),
  ) as Record<StackOutputName, CfnOutput>;
}
