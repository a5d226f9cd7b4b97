import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { applyNagPacks } from '../../infra/nag.js';
import { RepriseStack } from '../../infra/reprise-stack.js';
import { resourcesOf, synthReprise, testApp } from './synth.js';
import { propsFromContext } from '../../infra/context.js';

const CLUSTERS = [
  { name: 'runners' },
  { name: 'gpu-runners', runnerSelector: 'actions.github.com/scale-set-name=gpu', namespaces: ['arc-gpu'] },
];

type Statement = { Action: string | string[]; Resource: unknown; Effect: string };

/** Every statement of the policies attached to the EC2 signal function's role. */
function ec2SignalStatements(template: ReturnType<typeof synthReprise>['template']): Statement[] {
  const policies = resourcesOf(template, 'AWS::IAM::Policy');
  return Object.values(policies)
    .filter((p) => JSON.stringify(p.Properties?.Roles).includes('Ec2Signal'))
    .flatMap((p) => (p.Properties?.PolicyDocument as { Statement: Statement[] }).Statement);
}

describe('the construct with eksClusters (issue 43)', () => {
  it('creates one access entry per cluster for the EC2 signal role, with the read-only view policy', () => {
    const { template } = synthReprise({ runnerPreset: 'actions-runner-controller', eksClusters: CLUSTERS });
    template.resourceCountIs('AWS::EKS::AccessEntry', 2);
    template.hasResourceProperties('AWS::EKS::AccessEntry', {
      ClusterName: 'runners',
      Type: 'STANDARD',
      PrincipalArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('Ec2SignalRole'), 'Arn'] },
      AccessPolicies: [
        {
          PolicyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy',
          AccessScope: { Type: 'cluster' },
        },
      ],
    });
    template.hasResourceProperties('AWS::EKS::AccessEntry', {
      ClusterName: 'gpu-runners',
      AccessPolicies: [Match.objectLike({ AccessScope: { Type: 'namespace', Namespaces: ['arc-gpu'] } })],
    });
  });

  it('accessEntry: false (a cluster on aws-auth) gets the DescribeCluster grant and no access entry', () => {
    const { template } = synthReprise({ eksClusters: [{ name: 'legacy', accessEntry: false }, { name: 'runners' }] });
    template.resourceCountIs('AWS::EKS::AccessEntry', 1);
    template.hasResourceProperties('AWS::EKS::AccessEntry', { ClusterName: 'runners' });
    const eks = ec2SignalStatements(template).find((s) => s.Action === 'eks:DescribeCluster');
    expect(JSON.stringify(eks?.Resource)).toContain(':cluster/legacy');
  });

  it('grants eks:DescribeCluster on the named clusters only, and no other EKS action', () => {
    const { template } = synthReprise({ eksClusters: CLUSTERS });
    const eks = ec2SignalStatements(template).filter((s) => JSON.stringify(s.Action).includes('eks:'));
    expect(eks).toHaveLength(1);
    expect(eks[0]?.Action).toBe('eks:DescribeCluster');
    const resources = JSON.stringify(eks[0]?.Resource);
    expect(resources).toContain(':cluster/runners');
    expect(resources).toContain(':cluster/gpu-runners');
    expect(resources).not.toContain('*');
  });

  it('hands the function EKS_CLUSTERS as JSON, and adds the pod-listing alarm', () => {
    const { template } = synthReprise({ eksClusters: CLUSTERS });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ EKS_CLUSTERS: JSON.stringify(CLUSTERS) }) },
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'EksPodListingFailed',
      Dimensions: [{ Name: 'service', Value: 'reprise-ec2-signal' }],
      Threshold: 0,
    });
  });

  it('without clusters: no access entry, no EKS grant, no alarm, no variable', () => {
    const { template } = synthReprise({ runnerPreset: 'actions-runner-controller' });
    template.resourceCountIs('AWS::EKS::AccessEntry', 0);
    expect(ec2SignalStatements(template).some((s) => JSON.stringify(s.Action).includes('eks:'))).toBe(false);
    expect(JSON.stringify(template.toJSON())).not.toContain('EksPodListingFailed');
    expect(JSON.stringify(template.toJSON())).not.toContain('EKS_CLUSTERS');
  });

  it.each([
    [[{ name: 'bad name' }], /eksClusters\[0\]\.name: expected an EKS cluster name/],
    [[{ name: 'a' }, { name: 'a' }], /listed twice/],
    [[{ name: 'a', runnerSelector: 'x=' + 'y'.repeat(70) }], /runnerSelector/],
    [[{ name: 'a', token: 'secret' }], /for the local runtime only/],
    [[{ name: 'a', namespaces: ['Not_A_Namespace'] }], /namespaces/],
  ])('refuses %j at synth', (eksClusters, error) => {
    expect(() => synthReprise({ eksClusters: eksClusters as never })).toThrow(error);
  });

  it('is read from the eksClusters context key as JSON', () => {
    const { app } = testApp({ context: { eksClusters: JSON.stringify([{ name: 'runners' }]) } });
    expect(propsFromContext(app.node).props.eksClusters).toEqual([{ name: 'runners' }]);
  });

  it('cdk-nag has no finding with the access entries and the grant', () => {
    const { app, outdir } = testApp();
    new RepriseStack(app, 'Reprise', { reprise: { eksClusters: CLUSTERS, alarmEmail: 'ops@example.com' } });
    applyNagPacks(app);
    expect(() => app.synth()).not.toThrow();
    const file = join(outdir, 'validation-report.json');
    const report = existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as { pluginReports: { violations?: unknown[] }[] })
      : { pluginReports: [] };
    expect(report.pluginReports.flatMap((r) => r.violations ?? [])).toEqual([]);
  });
});
