import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { propsFromContext } from '../../infra/context.js';
import { applyNagPacks } from '../../infra/nag.js';
import { RepriseStack } from '../../infra/reprise-stack.js';
import { SPOT_DRILL_TAG, SPOT_INTERRUPTION_ACTION } from '../../infra/spot-drill.js';
import { resourcesOf, testApp } from './synth.js';

/** `cdk synth -c …` as the app runs it: props from the context, the cdk-nag packs applied. */
function synthWithContext(context: Record<string, unknown>) {
  const { app, outdir } = testApp({ context });
  const { stackName, props } = propsFromContext(app.node);
  const stack = new RepriseStack(app, stackName, {
    reprise: props,
    env: { account: '123456789012', region: 'eu-west-1' },
  });
  applyNagPacks(app);
  app.synth();
  const report = join(outdir, 'validation-report.json');
  const violations = existsSync(report)
    ? (
        JSON.parse(readFileSync(report, 'utf8')) as { pluginReports: { violations?: unknown[] }[] }
      ).pluginReports.flatMap((r) => r.violations ?? [])
    : [];
  return { template: Template.fromStack(stack), violations };
}

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown; Effect: string };

describe('the spot drill (spotDrill)', () => {
  it('cdk synth -c spotDrill=true: an FIS experiment template with the interruption action, the tag filter and a role scoped to that action; cdk-nag clean', () => {
    const { template, violations } = synthWithContext({ spotDrill: 'true' });
    expect(violations).toEqual([]);
    const templates = Object.values(resourcesOf(template, 'AWS::FIS::ExperimentTemplate'));
    expect(templates).toHaveLength(1);
    const t = templates[0]!.Properties as {
      Actions: Record<
        string,
        { ActionId: string; Parameters: Record<string, string>; Targets: Record<string, string> }
      >;
      Targets: Record<string, { ResourceType: string; ResourceTags: Record<string, string>; SelectionMode: string }>;
      RoleArn: { 'Fn::GetAtt': [string, string] };
      StopConditions: { Source: string }[];
    };
    const [action] = Object.values(t.Actions);
    expect(action).toMatchObject({
      ActionId: SPOT_INTERRUPTION_ACTION,
      Parameters: { durationBeforeInterruption: 'PT2M' },
      Targets: { SpotInstances: 'TaggedSpotRunner' },
    });
    expect(t.Targets.TaggedSpotRunner).toMatchObject({
      ResourceType: 'aws:ec2:spot-instance',
      ResourceTags: { 'reprise-spot-drill': 'true' },
      SelectionMode: 'COUNT(1)',
    });
    expect(t.StopConditions).toEqual([{ Source: 'none' }]);

    // Its role: assumed by FIS only; the interruption only on tagged instances, and a read to find them.
    const roleId = t.RoleArn['Fn::GetAtt'][0];
    const role = resourcesOf(template, 'AWS::IAM::Role')[roleId]!.Properties as {
      AssumeRolePolicyDocument: { Statement: { Principal: { Service: string } }[] };
      Policies: { PolicyDocument: { Statement: Statement[] } }[];
      ManagedPolicyArns?: unknown;
    };
    expect(role.AssumeRolePolicyDocument.Statement.map((s) => s.Principal.Service)).toEqual(['fis.amazonaws.com']);
    expect(role.ManagedPolicyArns).toBeUndefined();
    const statements = role.Policies.flatMap((p) => p.PolicyDocument.Statement);
    expect(statements.map((s) => s.Action)).toEqual(['ec2:SendSpotInstanceInterruptions', 'ec2:DescribeInstances']);
    expect(statements[0]!.Condition).toEqual({
      StringEquals: { [`aws:ResourceTag/${SPOT_DRILL_TAG.key}`]: SPOT_DRILL_TAG.value },
    });
    expect(statements.every((s) => s.Effect === 'Allow')).toBe(true);
  }, 180_000);

  it('off by default: no experiment template, no FIS role', () => {
    const { template } = synthWithContext({});
    expect(resourcesOf(template, 'AWS::FIS::ExperimentTemplate')).toEqual({});
    const fisRoles = Object.values(resourcesOf(template, 'AWS::IAM::Role')).filter((r) =>
      JSON.stringify(r.Properties).includes('fis.amazonaws.com'),
    );
    expect(fisRoles).toEqual([]);
  }, 180_000);
});
