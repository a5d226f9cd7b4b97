import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { PROJECT_ROOT } from '../../infra/functions/handlers.js';
import type { RepriseProps } from '../../infra/props/reprise-props.js';
import { RepriseStack } from '../../infra/reprise-stack.js';

/** The feature flags cdk.json gives the real app, so tests synthesize what `cdk synth` does. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context?: object };
  return { ...cdkJson.context };
}

export interface TestApp {
  readonly app: App;
  readonly outdir: string;
}

/**
 * An app writing into a fresh temp directory. Without `bundle`, NodejsFunction skips esbuild
 * (`aws:cdk:bundling-stacks` = []), which keeps template tests fast; bundle tests opt in.
 */
export function testApp(options: { bundle?: boolean; context?: Record<string, unknown> } = {}): TestApp {
  const outdir = mkdtempSync(join(tmpdir(), 'reprise-synth-'));
  const app = new App({
    outdir,
    context: {
      ...cdkJsonContext(),
      ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...options.context,
    },
  });
  return { app, outdir };
}

export interface Synthesized {
  readonly stack: RepriseStack;
  readonly template: Template;
  readonly outdir: string;
}

/** One Reprise stack in a fixed environment, synthesized once. */
export function synthReprise(props: RepriseProps = {}, options: { bundle?: boolean } = {}): Synthesized {
  const { app, outdir } = testApp(options);
  const stack = new RepriseStack(app, 'Reprise', {
    reprise: props,
    env: { account: '123456789012', region: 'eu-west-1' },
  });
  return { stack, template: Template.fromStack(stack), outdir };
}

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown>; Metadata?: object }>;

/** Resources of one type, by logical id. */
export function resourcesOf(template: Template, type: string): Resources {
  return template.findResources(type) as Resources;
}

/** Logical id of the one resource of `type` whose id starts with `prefix`. */
export function logicalId(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(resourcesOf(template, type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1) throw new Error(`expected one ${type} starting with ${prefix}, got ${ids.join(', ')}`);
  return ids[0] as string;
}
