import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { logicalId, resourcesOf, synthReprise } from './synth.js';

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

let t: Template;
beforeAll(() => {
  t = synthReprise({ logHosts: ['example.com'], runnerTagKeys: ['Name'] }).template;
});

const actions = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);

/** Identity policies by the role they are attached to. */
function policiesByRole(): Map<string, Statement[]> {
  const byRole = new Map<string, Statement[]>();
  for (const policy of Object.values(resourcesOf(t, 'AWS::IAM::Policy'))) {
    const doc = policy.Properties?.PolicyDocument as { Statement: Statement[] };
    for (const role of policy.Properties?.Roles as { Ref: string }[]) {
      byRole.set(role.Ref, [...(byRole.get(role.Ref) ?? []), ...doc.Statement]);
    }
  }
  return byRole;
}

const roleOf = (fn: string) => logicalId(t, 'AWS::IAM::Role', `Reprise${fn}Role`);

describe('IAM', () => {
  it('has no Allow statement whose action is * or service:*', () => {
    const all: Statement[] = [];
    for (const type of ['AWS::IAM::Policy', 'AWS::SQS::QueuePolicy', 'AWS::SNS::TopicPolicy']) {
      for (const r of Object.values(resourcesOf(t, type))) {
        all.push(...(r.Properties?.PolicyDocument as { Statement: Statement[] }).Statement);
      }
    }
    expect(all.length).toBeGreaterThan(5);
    const wild = all
      .filter((s) => s.Effect === 'Allow')
      .flatMap(actions)
      .filter((a) => a === '*' || /^[a-z0-9-]+:\*$/i.test(a));
    expect(wild).toEqual([]);
    // The only wildcard actions are the TLS-enforcing denies of the queue policies.
    const denies = all.filter((s) => s.Effect === 'Deny');
    expect(denies.flatMap(actions).every((a) => a === 'sqs:*' || a === 'sns:Publish')).toBe(true);
  });

  it('uses no AWS managed policy', () => {
    for (const role of Object.values(resourcesOf(t, 'AWS::IAM::Role'))) {
      expect(role.Properties?.ManagedPolicyArns).toBeUndefined();
    }
  });

  it('gives ec2:DescribeInstances to the EC2 signal function only', () => {
    const holders = [...policiesByRole()]
      .filter(([, statements]) => statements.some((s) => actions(s).includes('ec2:DescribeInstances')))
      .map(([role]) => role);
    expect(holders).toEqual([roleOf('Ec2Signal')]);
  });

  it('limits resource wildcards to ec2:DescribeInstances', () => {
    const wildcards = [...policiesByRole().values()]
      .flat()
      .filter((s) => s.Resource === '*' || (Array.isArray(s.Resource) && s.Resource.includes('*')));
    expect(wildcards.flatMap(actions)).toEqual(['ec2:DescribeInstances']);
  });

  it.each([
    [['Intake'], 'RepriseStorageWebhookSecret'],
    [['Worker', 'Reconciler'], 'RepriseStorageGitHubAppSecret'],
    [['SignalIntake'], 'RepriseStorageSignalSecret'],
  ])('lets %s read its own secret and no other', (fns, secretPrefix) => {
    const secret = logicalId(t, 'AWS::SecretsManager::Secret', secretPrefix);
    for (const [role, statements] of policiesByRole()) {
      const reads = statements.filter((s) => JSON.stringify(s.Resource) === JSON.stringify({ Ref: secret }));
      if (fns.map(roleOf).includes(role)) {
        expect(reads.flatMap(actions).sort()).toEqual([
          'secretsmanager:DescribeSecret',
          'secretsmanager:GetSecretValue',
        ]);
      } else {
        expect(reads).toEqual([]);
      }
    }
  });

  it('lets the EC2 signal function read no secret at all', () => {
    const statements = policiesByRole().get(roleOf('Ec2Signal')) ?? [];
    expect(statements.flatMap(actions).filter((a) => a.startsWith('secretsmanager:'))).toEqual([]);
  });

  it('lets only the intake, the reconciler and the two signal functions (early recovery’s requests) send to the work queue, and only the worker consume it', () => {
    const queue = logicalId(t, 'AWS::SQS::Queue', 'RepriseWorkQueue');
    const onQueue = (a: string) =>
      [...policiesByRole()]
        .filter(([, st]) => st.some((s) => actions(s).includes(a) && JSON.stringify(s.Resource).includes(`"${queue}"`)))
        .map(([role]) => role);
    expect(onQueue('sqs:SendMessage').sort()).toEqual(
      [roleOf('Intake'), roleOf('Reconciler'), roleOf('Ec2Signal'), roleOf('SignalIntake')].sort(),
    );
    expect(onQueue('sqs:ReceiveMessage')).toEqual([roleOf('Worker')]);
  });

  it('lets the intake, the worker and the reconciler put events on the default bus only, and no other function', () => {
    const onBus = [...policiesByRole()]
      .filter(([, st]) => st.some((s) => actions(s).includes('events:PutEvents')))
      .map(([role]) => role);
    expect(onBus.sort()).toEqual([roleOf('Intake'), roleOf('Worker'), roleOf('Reconciler')].sort());
    for (const role of onBus) {
      const st = (policiesByRole().get(role) ?? []).filter((s) => actions(s).includes('events:PutEvents'));
      expect(st.map((s) => actions(s))).toEqual([['events:PutEvents']]);
      expect(JSON.stringify(st[0]!.Resource)).toContain(':event-bus/default');
    }
  });

  it('grants PutEvents on the bus eventBusName names, with EVENT_BUS_NAME set to it', () => {
    const alt = synthReprise({ eventBusName: 'ci-events' }).template;
    const json = JSON.stringify(resourcesOf(alt, 'AWS::IAM::Policy'));
    expect(json).toContain(':event-bus/ci-events');
    expect(json).not.toContain(':event-bus/default');
    for (const fn of ['Intake', 'Worker', 'Reconciler']) {
      const props = Object.entries(resourcesOf(alt, 'AWS::Lambda::Function')).find(([id]) =>
        id.startsWith(`Reprise${fn}Function`),
      )?.[1].Properties as { Environment: { Variables: Record<string, unknown> } };
      expect(props.Environment.Variables.EVENT_BUS_NAME).toBe('ci-events');
    }
  });

  it('lets each function write to its own log group only', () => {
    for (const fn of ['Intake', 'Worker', 'Ec2Signal', 'SignalIntake', 'Reconciler']) {
      const logs = (policiesByRole().get(roleOf(fn)) ?? []).filter((s) => actions(s).includes('logs:PutLogEvents'));
      expect(logs.map((s) => s.Resource)).toEqual([
        { 'Fn::GetAtt': [logicalId(t, 'AWS::Logs::LogGroup', `Reprise${fn}Logs`), 'Arn'] },
      ]);
    }
  });
});

describe('secrets stay out of the environment', () => {
  const environments = () =>
    Object.entries(resourcesOf(t, 'AWS::Lambda::Function')).map(
      ([id, fn]) => [id, (fn.Properties?.Environment as { Variables: Record<string, unknown> }).Variables] as const,
    );

  it('names every secret-bearing variable *_ARN and fills it with a secret ARN', () => {
    const secrets = Object.keys(resourcesOf(t, 'AWS::SecretsManager::Secret'));
    for (const [, vars] of environments()) {
      for (const [name, value] of Object.entries(vars)) {
        if (/SECRET|PRIVATE|TOKEN|PASSWORD|KEY(?!S$)/.test(name)) {
          expect(name).toMatch(/_ARN$/);
          expect(secrets).toContain((value as { Ref?: string }).Ref);
        }
      }
    }
  });

  it('never resolves a secret value into a variable', () => {
    const rendered = JSON.stringify(environments());
    expect(rendered).not.toMatch(/resolve:secretsmanager|SecretString|privateKey|BEGIN .*PRIVATE KEY/);
  });
});
