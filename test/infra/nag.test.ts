import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Stack, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { acknowledge, applyNagPacks } from '../../infra/nag.js';
import { RepriseStack } from '../../infra/reprise-stack.js';
import { WebhookAccess } from '../../infra/webhook-access.js';
import { testApp } from './synth.js';

interface Report {
  pluginReports: { pluginName?: string; summary?: { status?: string }; violations?: unknown[] }[];
}

const readReport = (outdir: string): Report => {
  const file = join(outdir, 'validation-report.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Report) : { pluginReports: [] };
};

/** A stack with one queue that breaks three rules: no encryption, no TLS enforcement, no DLQ. */
function badQueueApp(acknowledged: boolean) {
  const test = testApp();
  const stack = new Stack(test.app, 'Bad');
  const queue = new Queue(stack, 'Plain', { encryption: QueueEncryption.UNENCRYPTED });
  if (acknowledged) {
    for (const id of ['AwsSolutions-SQS2', 'AwsSolutions-SQS3', 'AwsSolutions-SQS4', 'Serverless-SQSRedrivePolicy']) {
      acknowledge(queue, id, 'Fixture: proves that an acknowledged finding no longer fails synthesis.');
    }
  }
  applyNagPacks(test.app);
  return test;
}

/** Every acknowledgement recorded under `root`, as rule id and reason. */
function acknowledgements(root: IConstruct): { path: string; id: string; reason: string }[] {
  return root.node
    .findAll()
    .flatMap((c) =>
      c.node.metadata
        .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((m) =>
          Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({ path: c.node.path, id, reason })),
        ),
    );
}

describe('cdk-nag (AwsSolutions + Serverless packs)', () => {
  it.each([
    ['httpApi', WebhookAccess.httpApi()],
    ['functionUrl', WebhookAccess.functionUrl()],
  ])('synth with cdk-nag has zero unacknowledged findings (%s)', (_kind, webhookAccess) => {
    const { app, outdir } = testApp();
    const stack = new RepriseStack(app, 'Reprise', { reprise: { webhookAccess, alarmEmail: 'ops@example.com' } });
    applyNagPacks(app);
    expect(() => app.synth()).not.toThrow();
    const report = readReport(outdir);
    expect(report.pluginReports.flatMap((r) => r.violations ?? [])).toEqual([]);
    expect(acknowledgements(stack).length).toBeGreaterThan(0);
  });

  it('an unacknowledged finding fails the check', () => {
    const { app } = badQueueApp(false);
    let error: Error | undefined;
    try {
      app.synth();
    } catch (err) {
      error = err as Error;
    }
    expect(String(error)).toMatch(/^ValidationFailed: /);
    const message = error?.message ?? '';
    for (const rule of ['AwsSolutions-SQS2', 'AwsSolutions-SQS3', 'AwsSolutions-SQS4']) {
      expect(message).toContain(rule);
    }
    expect(message).toContain('Bad/Plain/Resource');
  });

  it('the same finding, acknowledged with a reason, passes', () => {
    const { app } = badQueueApp(true);
    expect(() => app.synth()).not.toThrow();
  });

  it('every acknowledgement names one rule and carries a reason of substance', () => {
    const { app } = testApp();
    const stack = new RepriseStack(app, 'Reprise');
    const acks = acknowledgements(stack);
    expect(acks.length).toBeGreaterThan(10);
    for (const ack of acks) {
      expect(ack.id).toMatch(/^(Annotation::)?(AwsSolutions|Serverless)-[A-Za-z0-9]+(\[[^\]]+\])?$/);
      expect(ack.reason.length).toBeGreaterThanOrEqual(80);
    }
    // Wildcards are acknowledged finding by finding, never the whole IAM5 rule.
    expect(acks.filter((a) => /IAM5$/.test(a.id))).toEqual([]);
  });

  it('refuses an acknowledgement without a real reason', () => {
    const { app } = testApp();
    expect(() => acknowledge(new Stack(app, 'S'), 'AwsSolutions-SQS2', 'n/a')).toThrow(/real reason/);
  });
});
