import type { CfnElement } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import {
  convertTime,
  type FunctionName,
  type Setting,
  SETTING_NAMES,
  settingOf,
  type Value,
} from '../../lib/config/settings-schema.js';
import type { RepriseProps } from '../../infra/props/reprise-props.js';
import { asProp } from '../../infra/props/resolve.js';
import type { RepriseStack } from '../../infra/reprise-stack.js';

/** Every setting a deployed function reads, with the function names. */
export const deployed = SETTING_NAMES.map((name) => ({ name, s: settingOf(name) })).filter(
  ({ s }) => s.readBy.length > 0,
);

function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let o = target;
  for (const k of keys.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
  o[keys[keys.length - 1] as string] = value;
}

/** The sample of every deployed setting, as construct props. */
export function sampleProps(): RepriseProps {
  const props: Record<string, unknown> = {};
  for (const { s } of deployed) setAt(props, s.prop as string, asProp(s, s.sample));
  return props as RepriseProps;
}

/** The same samples as `-c key=value` strings, in each key's own unit. */
export function sampleContext(): Record<string, string> {
  const context: Record<string, string> = {};
  for (const { s } of deployed) context[s.context as string] = asContextString(s, s.sample as Value);
  return context;
}

function asContextString(s: Setting, v: Value): string {
  if (Array.isArray(v)) return v.join(s.envSeparator === '\n' ? '\\n' : ',');
  if (typeof v === 'number' && s.unit && s.contextUnit) return String(convertTime(v, s.unit, s.contextUnit));
  return String(v);
}

export type Env = Record<string, string>;

/** Each deployed function of the stack, by its name. */
function functionsOf(stack: RepriseStack): Record<FunctionName, RepriseStack['reprise']['workerFunction']> {
  const r = stack.reprise;
  return {
    worker: r.workerFunction,
    reconciler: r.reconcilerFunction,
    intake: r.intakeFunction,
    signalIntake: r.signalIntakeFunction,
    ec2Signal: r.ec2SignalFunction,
  };
}

/** `read` applied to each function of the stack. */
const byFunction = <T>(
  stack: RepriseStack,
  read: (fn: RepriseStack['reprise']['workerFunction']) => T,
): Record<FunctionName, T> =>
  Object.fromEntries(Object.entries(functionsOf(stack)).map(([name, fn]) => [name, read(fn)])) as Record<
    FunctionName,
    T
  >;

/** Each function's environment in the synthesized template. */
export function environments(stack: RepriseStack, template: Template): Record<FunctionName, Env> {
  const resources = template.toJSON().Resources as Record<string, { Properties: { Environment: { Variables: Env } } }>;
  return byFunction(
    stack,
    (fn) => resources[stack.getLogicalId(fn.node.defaultChild as CfnElement)]?.Properties.Environment.Variables ?? {},
  );
}

/** The secrets (logical ids) each function's role may read its value of. */
export function secretsReadBy(stack: RepriseStack, template: Template): Record<FunctionName, string[]> {
  type Statement = { Action: string | string[]; Resource: unknown };
  const policies = Object.values(
    template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>,
  ).filter((res) => res.Type === 'AWS::IAM::Policy');
  return byFunction(stack, (fn) => {
    if (!fn.role) throw new Error('a function without a role of its own');
    const role = stack.getLogicalId(fn.role.node.defaultChild as CfnElement);
    return policies
      .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((x) => x.Ref === role))
      .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
      .filter((st) => [st.Action].flat().includes('secretsmanager:GetSecretValue'))
      .map((st) => (st.Resource as { Ref: string }).Ref);
  });
}
