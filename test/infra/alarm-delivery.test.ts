import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { resourcesOf, synthReprise } from './synth.js';

// Walks every alarm action to the topic it names and asks that topic's policies (and, if the
// topic is encrypted, its key's policy) whether CloudWatch may publish there. A deny-only policy
// replaces SNS's default one, so an alarm can fire into a topic that refuses it.

const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
type Json = unknown;
interface Statement {
  Effect: 'Allow' | 'Deny';
  Principal?: '*' | { Service?: string | string[]; AWS?: string | string[] };
  Action: string | string[];
  Resource?: Json;
  Condition?: Record<string, Record<string, Json>>;
}
interface Request {
  readonly service: string;
  readonly action: string;
  readonly resource: string;
  readonly context: Record<string, string>;
}

const arnOf = (logicalId: string, type: string): string =>
  type === 'AWS::SNS::Topic'
    ? `arn:aws:sns:${REGION}:${ACCOUNT}:${logicalId}`
    : `arn:aws:kms:${REGION}:${ACCOUNT}:key/${logicalId}`;

function resolver(template: Template): (v: Json) => Json {
  const all = template.toJSON().Resources as Record<string, { Type: string }>;
  const pseudo: Record<string, string> = {
    'AWS::AccountId': ACCOUNT,
    'AWS::Region': REGION,
    'AWS::Partition': 'aws',
    'AWS::URLSuffix': 'amazonaws.com',
  };
  const resolve = (v: Json): Json => {
    if (Array.isArray(v)) return v.map(resolve);
    if (v && typeof v === 'object') {
      const o = v as Record<string, Json>;
      if ('Ref' in o) {
        const ref = o.Ref as string;
        return pseudo[ref] ?? arnOf(ref, all[ref]?.Type ?? '');
      }
      if ('Fn::GetAtt' in o) {
        const [id] = o['Fn::GetAtt'] as [string, string];
        return arnOf(id, all[id]?.Type ?? '');
      }
      if ('Fn::Join' in o) {
        const [sep, parts] = o['Fn::Join'] as [string, Json[]];
        return parts.map((p) => String(resolve(p))).join(sep);
      }
      return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, resolve(x)]));
    }
    return v;
  };
  return resolve;
}

const list = (v: Json): string[] => (v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);
const like = (pattern: string, value: string): boolean =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(value);

function conditionHolds(condition: Statement['Condition'], context: Record<string, string>): boolean {
  return Object.entries(condition ?? {}).every(([operator, entries]) =>
    Object.entries(entries).every(([key, expected]) => {
      const actual = context[key];
      if (actual === undefined) return false;
      const values = list(expected);
      switch (operator) {
        case 'Bool':
        case 'StringEquals':
        case 'ArnEquals':
          return values.includes(actual);
        case 'StringLike':
        case 'ArnLike':
          return values.some((p) => like(p, actual));
        default:
          throw new Error(`condition operator ${operator} is not modelled here`);
      }
    }),
  );
}

function applies(s: Statement, r: Request): boolean {
  const principal =
    s.Principal === '*' || list(s.Principal?.Service).includes(r.service) || list(s.Principal?.AWS).includes('*');
  const action = list(s.Action).some((a) => like(a, r.action));
  const resource = s.Resource === undefined || list(s.Resource).some((p) => like(p, r.resource));
  return principal && action && resource && conditionHolds(s.Condition, r.context);
}

/** An explicit Deny wins; otherwise some Allow must apply. */
const allowed = (statements: readonly Statement[], r: Request): boolean =>
  !statements.some((s) => s.Effect === 'Deny' && applies(s, r)) &&
  statements.some((s) => s.Effect === 'Allow' && applies(s, r));

const alarmPublish = (topicArn: string, action = 'sns:Publish'): Request => ({
  service: 'cloudwatch.amazonaws.com',
  action,
  resource: topicArn,
  context: {
    'aws:SecureTransport': 'true',
    'aws:SourceAccount': ACCOUNT,
    'aws:SourceArn': `arn:aws:cloudwatch:${REGION}:${ACCOUNT}:alarm:reprise-alarm`,
  },
});

describe('every alarm can reach a person: CloudWatch may publish to each topic an alarm action names', () => {
  let template: Template;
  let resolve: (v: Json) => Json;
  beforeAll(() => {
    template = synthReprise({ alarmEmail: 'oncall@example.com' }).template;
    resolve = resolver(template);
  });

  function statementsFor(type: string, targetKey: string, targetArn: string): Statement[] {
    return Object.values(resourcesOf(template, type)).flatMap((p) => {
      const props = resolve(p.Properties) as Record<string, Json>;
      if (!list(props[targetKey]).includes(targetArn)) return [];
      return (props.PolicyDocument as { Statement: Statement[] }).Statement;
    });
  }

  it('each alarm and OK action names a topic whose policy lets cloudwatch.amazonaws.com publish', () => {
    const alarms = Object.entries(resourcesOf(template, 'AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThan(5);
    for (const [id, a] of alarms) {
      const props = resolve(a.Properties) as { AlarmActions?: Json[]; OKActions?: Json[] };
      const targets = [...list(props.AlarmActions), ...list(props.OKActions)];
      expect(targets.length, `${id} notifies something`).toBeGreaterThan(0);
      for (const topicArn of targets) {
        const statements = statementsFor('AWS::SNS::TopicPolicy', 'Topics', topicArn);
        expect(statements.length, `${id}: ${topicArn} has a topic policy`).toBeGreaterThan(0);
        expect(allowed(statements, alarmPublish(topicArn)), `${id}: CloudWatch may publish to ${topicArn}`).toBe(true);
      }
    }
  });

  it('an encrypted alarm topic lets CloudWatch use its key', () => {
    for (const [id, topic] of Object.entries(resourcesOf(template, 'AWS::SNS::Topic'))) {
      const keyRef = topic.Properties?.KmsMasterKeyId;
      if (keyRef === undefined) continue;
      const keyId =
        (keyRef as { 'Fn::GetAtt'?: [string]; Ref?: string }).Ref ??
        (keyRef as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
      const key = resourcesOf(template, 'AWS::KMS::Key')[keyId];
      expect(key, `${id}: its key is in the stack`).toBeDefined();
      const statements = (resolve(key?.Properties?.KeyPolicy) as { Statement: Statement[] }).Statement;
      const keyArn = arnOf(keyId, 'AWS::KMS::Key');
      for (const action of ['kms:Decrypt', 'kms:GenerateDataKey']) {
        expect(allowed(statements, { ...alarmPublish(keyArn, action), resource: keyArn }), `${id}: ${action}`).toBe(
          true,
        );
      }
    }
  });

  it('HTTPS only still holds: a publish without TLS is refused', () => {
    const [topicArn] = Object.keys(resourcesOf(template, 'AWS::SNS::Topic')).map((id) => arnOf(id, 'AWS::SNS::Topic'));
    const statements = statementsFor('AWS::SNS::TopicPolicy', 'Topics', topicArn!);
    const plain = alarmPublish(topicArn!);
    expect(allowed(statements, { ...plain, context: { ...plain.context, 'aws:SecureTransport': 'false' } })).toBe(
      false,
    );
  });

  it('the grant is scoped: an alarm of another account may not publish', () => {
    const [topicArn] = Object.keys(resourcesOf(template, 'AWS::SNS::Topic')).map((id) => arnOf(id, 'AWS::SNS::Topic'));
    const statements = statementsFor('AWS::SNS::TopicPolicy', 'Topics', topicArn!);
    const foreign = alarmPublish(topicArn!);
    expect(
      allowed(statements, {
        ...foreign,
        context: {
          ...foreign.context,
          'aws:SourceAccount': '999999999999',
          'aws:SourceArn': 'arn:aws:cloudwatch:eu-west-1:999999999999:alarm:x',
        },
      }),
    ).toBe(false);
  });

  it('control: the deny-only policy enforceSSL writes on its own refuses the alarm', () => {
    const denyOnly: Statement[] = [
      {
        Effect: 'Deny',
        Principal: '*',
        Action: 'sns:Publish',
        Resource: 'arn:aws:sns:eu-west-1:123456789012:t',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      },
    ];
    expect(allowed(denyOnly, alarmPublish('arn:aws:sns:eu-west-1:123456789012:t'))).toBe(false);
  });
});
