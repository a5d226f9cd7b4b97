/**
 * The CloudFormation outputs the `Reprise` construct adds to whatever stack holds it, and the
 * `reprise` command reads. Their logical ids depend on where the construct sits (`TableName` in
 * `RepriseStack`, `RepriseTableName1A2B3C4D` in a stack of the user's own), so each output's
 * description carries its name: `… (reprise TableName)`. The command finds them by that tag.
 */
export const STACK_OUTPUTS = {
  WebhookUrl: 'Webhook URL of the GitHub App',
  SignalsUrl: 'Endpoint for runner signals from external agents (POST)',
  GitHubAppSecretName: 'Fill with {"appId":"…","privateKey":"…"}',
  WebhookSecretName: 'Webhook secret to paste into the GitHub App',
  SignalSecretName: 'Shared secret of POST /signals',
  DashboardUrl: 'CloudWatch dashboard',
  TableName: 'DynamoDB table',
  QueueUrl: 'SQS FIFO work queue',
  AlarmTopicArn: 'SNS topic every alarm notifies',
} as const;

/** An output's name, the tag its description carries. */
export type StackOutputName = keyof typeof STACK_OUTPUTS;

/** Every output's name, in the table's order. */
export const STACK_OUTPUT_NAMES = Object.keys(STACK_OUTPUTS) as readonly StackOutputName[];

/** The description of the construct's output `name`: what it holds, then the tag the command looks for. */
export const stackOutputDescription = (name: StackOutputName): string => `${STACK_OUTPUTS[name]} (reprise ${name})`;

const TAG = /\(reprise (\w+)\)$/;
const isName = (s: string): s is StackOutputName => Object.hasOwn(STACK_OUTPUTS, s);

/** One output of a deployed stack, as `DescribeStacks` lists it. */
export interface DescribedOutput {
  readonly OutputKey?: string | undefined;
  readonly OutputValue?: string | undefined;
  readonly Description?: string | undefined;
}

/** The outcome of reading a stack's outputs: reprise's by name, or why they cannot be told apart. */
export type RepriseOutputs =
  | { readonly ok: true; readonly outputs: Map<StackOutputName, string> }
  | { readonly ok: false; readonly name: StackOutputName; readonly keys: readonly string[] };

/**
 * reprise's outputs among a stack's outputs: tagged ones by their tag; an untagged output whose key
 * is a reprise name (a stack deployed before the tags, or a `CfnOutput` of the user's own) only where
 * no tagged output has that name. Two tagged outputs of one name (two constructs) are ambiguous.
 */
export function repriseOutputs(described: readonly DescribedOutput[]): RepriseOutputs {
  const tagged = new Map<StackOutputName, string[]>();
  const values = new Map<string, string>();
  for (const o of described) {
    if (!o.OutputKey || !o.OutputValue) continue;
    values.set(o.OutputKey, o.OutputValue);
    const name = TAG.exec(o.Description ?? '')?.[1];
    if (name && isName(name)) tagged.set(name, [...(tagged.get(name) ?? []), o.OutputKey]);
  }
  const outputs = new Map<StackOutputName, string>();
  for (const name of STACK_OUTPUT_NAMES) {
    const keys = tagged.get(name) ?? [];
    if (keys.length > 1) return { ok: false, name, keys };
    const key = keys[0] ?? name;
    const value = values.get(key);
    if (value !== undefined) outputs.set(name, value);
  }
  return { ok: true, outputs };
}
