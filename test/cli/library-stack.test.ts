/**
 * The README's "Use as a library" stack, synthesized from the sources as the reader types it, and
 * every `--stack` command run against the outputs that template deploys: the construct brings what
 * the command reads, whatever the stack and whatever the user adds.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App, Stack } from 'aws-cdk-lib';
import { transformSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decisions } from '../../lib/cli/decisions.js';
import { replay } from '../../lib/cli/replay.js';
import { report } from '../../lib/cli/report.js';
import { setup } from '../../lib/cli/setup.js';
import { status } from '../../lib/cli/status.js';
import { parseAppSecret } from '../../lib/config/secrets.js';
import {
  type DescribedOutput,
  repriseOutputs,
  STACK_OUTPUT_NAMES,
  type StackOutputName,
} from '../../lib/config/stack-outputs.js';
import type { DecisionRecord } from '../../lib/records.js';
import { unescapeHtml } from '../docs/support.js';
import { failureAnnotation, TEXT } from '../support/evidence.js';
import { appEnv, type Harness, startHarness, TABLE, testPrivateKey } from '../support/harness.js';
import { captureIo, type CapturedIo, FakeCloudFormation, FakeSecretsManager, FakeSqs, waitFor } from './support.js';

const ROOT = join(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);

/** What CloudFormation would resolve each of the construct's outputs to once deployed. */
const DEPLOYED: Record<StackOutputName, string> = {
  WebhookUrl: 'https://abc123.execute-api.eu-west-1.amazonaws.com/webhook',
  SignalsUrl: 'https://abc123.execute-api.eu-west-1.amazonaws.com/signals',
  GitHubAppSecretName: 'RepriseStorageGitHubApp-abc',
  WebhookSecretName: 'RepriseStorageWebhook-abc',
  SignalSecretName: 'RepriseStorageSignal-abc',
  DashboardUrl: 'https://console.aws.amazon.com/cloudwatch/home#dashboards:name=Runners',
  TableName: TABLE,
  QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/Runners-RepriseWorkQueue.fifo',
  AlarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:Runners-RepriseAlarms',
};

/** The README's TypeScript block, its imports pointed at this checkout: `reprise` is infra/index.ts. */
function readmeApp(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## Use as a library$/m)[1]?.split(/^## /m)[0] ?? '';
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('README.md: no ts block under "Use as a library"');
  const resolved = code.replace(/from '([^']+)'/g, (_m, spec: string) =>
    spec === 'reprise' ? `from '${join(ROOT, 'infra/index.ts')}'` : `from '${require.resolve(spec)}'`,
  );
  return `${transformSync(resolved, { loader: 'ts', format: 'esm' }).code}\nexport { app, stack };\n`;
}

interface Template {
  Outputs: Record<string, { Description?: string; Value: unknown }>;
}

let template: Template;
let described: DescribedOutput[];
let dir: string;
let h: Harness;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reprise-library-stack-'));
  const file = join(dir, 'app.ts');
  writeFileSync(file, readmeApp());
  // Templates only: NodejsFunction skips esbuild, as `cdk synth` would for stacks it does not deploy.
  process.env.CDK_CONTEXT_JSON = JSON.stringify({ 'aws:cdk:bundling-stacks': [] });
  const { app, stack } = (await import(file)) as { app: App; stack: Stack };
  delete process.env.CDK_CONTEXT_JSON;
  // cdk-nag's checks run here too: an unacknowledged finding would fail the synthesis.
  template = app.synth().getStackByName(stack.stackName).template as Template;
  // DescribeStacks after `cdk deploy`: the construct's outputs resolved, the user's own copies too.
  described = Object.entries(template.Outputs).map(([key, o]) => {
    const name = /\(reprise (\w+)\)$/.exec(o.Description ?? '')?.[1] as StackOutputName | undefined;
    return {
      OutputKey: key,
      OutputValue: name ? DEPLOYED[name] : `the user's own ${key}`,
      ...(o.Description !== undefined && { Description: o.Description }),
    };
  });
  h = await startHarness();
}, 120_000);

afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

const aws = (extra: object = {}) => ({
  cloudFormation: new FakeCloudFormation({ Runners: described }),
  dynamodb: h.dynamo.client,
  ...extra,
});

async function decided(repo: string): Promise<number> {
  const run = h.sim.addRun({
    repo,
    jobs: [{ name: 'test', conclusion: 'failure', annotations: [failureAnnotation(TEXT.exitCode())] }],
  });
  const msg = h.message(run.id);
  await h.ledger.attempts.claim(msg, 'w', 60_000);
  await h.ledger.attempts.finalise(msg, 'w', 'genuine_failure', 'job "test" failed for a real reason');
  return run.id;
}

describe("the README's library stack: the construct's outputs are all the CLI needs", () => {
  it('adds every output the CLI reads under logical ids of its own, each tagged with its name', () => {
    const found = repriseOutputs(described);
    expect(found.ok && [...found.outputs.keys()].sort()).toEqual([...STACK_OUTPUT_NAMES].sort());
    expect(found.ok && Object.fromEntries(found.outputs)).toEqual(DEPLOYED);
    // Looked up by plain key only, as before the tags, the stack lacks them: the README's bug.
    const plain = described.map(({ OutputKey, OutputValue }) => ({ OutputKey, OutputValue }));
    const untagged = repriseOutputs(plain);
    expect(untagged.ok && untagged.outputs.has('TableName')).toBe(false);
  });

  it('two constructs in one stack are refused by name rather than guessed', async () => {
    const twice = [...described, ...described.map((o) => ({ ...o, OutputKey: `Second${o.OutputKey}` }))];
    const io = captureIo({}, { cloudFormation: new FakeCloudFormation({ Runners: twice }) });
    expect(await decisions(['--stack', 'Runners'], io)).toBe(1);
    expect(io.err()).toMatch(/stack "Runners" holds more than one reprise construct \(outputs \w+, Second\w+/);
  });

  it('decisions --stack Runners reads the table the construct made', async () => {
    const runId = await decided('acme/library-decisions');
    const io = captureIo({}, aws());
    expect(await decisions(['--stack', 'Runners', '--json'], io)).toBe(0);
    const list = JSON.parse(io.out()) as DecisionRecord[];
    expect(list.map((d) => d.runId)).toContain(runId);
  });

  it('report --stack Runners reads the same table', async () => {
    await decided('acme/library-report');
    const io = captureIo({}, aws());
    expect(await report(['--stack', 'Runners', '--json'], io)).toBe(0);
    const r = JSON.parse(io.out()) as { decisions: { total: number } };
    expect(r.decisions.total).toBeGreaterThanOrEqual(1);
  });

  it('status --stack Runners checks the webhook URL and the table of the construct', async () => {
    await decided('acme/library-status');
    h.sim.hookConfig = { url: DEPLOYED.WebhookUrl, content_type: 'json', insecure_ssl: '0' };
    const io = captureIo(appEnv(h.sim.url), aws());
    await status(['--stack', 'Runners'], io);
    expect(io.out()).toMatch(new RegExp(`^OK +webhook URL +${DEPLOYED.WebhookUrl}$`, 'm'));
    expect(io.out()).toMatch(new RegExp(`^OK +decisions +last \\d+ from DynamoDB table ${TABLE}:$`, 'm'));
  });

  it('replay --stack Runners sends to the queue the construct made', async () => {
    const run = h.sim.addRun({
      repo: 'acme/library-replay',
      jobs: [{ name: 'test', conclusion: 'failure', annotations: [failureAnnotation(TEXT.selfHostedEmptyName)] }],
    });
    const sqs = new FakeSqs();
    const io = captureIo(appEnv(h.sim.url), aws({ sqs }));
    expect(await replay([`acme/library-replay#${run.id}@1`, '--stack', 'Runners'], io)).toBe(0);
    expect(sqs.sent.map((m) => m.QueueUrl)).toEqual([DEPLOYED.QueueUrl]);
  });

  it("setup --stack Runners registers the App at the construct's webhook URL and fills its two secrets", async () => {
    const sm = new FakeSecretsManager([DEPLOYED.GitHubAppSecretName, DEPLOYED.WebhookSecretName]);
    const io = captureIo({}, aws({ secretsManager: sm }));
    const done = setup(['--stack', 'Runners', '--api-url', h.sim.url, '--github-url', 'https://github.com'], io);
    const page = await openPage(io);
    expect(page.manifest.hook_attributes).toEqual({ url: DEPLOYED.WebhookUrl, active: true });
    h.sim.addManifestCode('library-code', {
      id: 424_299,
      slug: 'reprise-library',
      pem: testPrivateKey(),
      webhookSecret: 'whsec-library',
    });
    const res = await fetch(
      `${page.pageUrl}callback?${new URLSearchParams({ code: 'library-code', state: page.state })}`,
      { headers: { cookie: page.cookie } },
    );
    expect(res.status).toBe(200);
    expect(await done).toBe(0);
    expect(parseAppSecret(sm.values.get(DEPLOYED.GitHubAppSecretName) ?? '', 'app secret')).toMatchObject({
      appId: '424299',
    });
    expect(sm.values.get(DEPLOYED.WebhookSecretName)).toBe('whsec-library');
  });
});

/** The manifest page setup serves, as a browser would read it. */
async function openPage(io: CapturedIo) {
  const pageUrl = await waitFor(() => /Open (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(io.err())?.[1]);
  const res = await fetch(pageUrl);
  const html = await res.text();
  // The flow's cookie, as the browser sends it back with GitHub's redirect.
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const action = unescapeHtml(/<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? '');
  const manifest = JSON.parse(unescapeHtml(/name="manifest" value="([^"]+)"/.exec(html)?.[1] ?? '{}')) as Record<
    string,
    unknown
  >;
  return { pageUrl, manifest, cookie, state: new URL(action).searchParams.get('state') ?? '' };
}
