/**
 * Docs that cannot drift: every environment variable, context key and `reprise` option the README
 * and docs/*.md name exists, and every Node.js version they require is the one the package
 * supports. Each rule is checked against the code it names, and shown to fail on a made-up name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONTEXT_KEYS } from '../../infra/context.js';
import { COMMANDS } from '../../lib/cli/main.js';
import { SETTING_NAMES, settingOf } from '../../lib/config/settings-schema.js';
import { captureIo } from '../cli/support.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** The Node.js major the package supports (`engines`), and the functions' runtime with it. */
const SUPPORTED_NODE = Number(
  /\d+/.exec((JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node)![0],
);

/** Names other programs own, each with whose they are: the docs may name them. */
const FOREIGN_NAMES: Readonly<Record<string, string>> = {
  AWS_PROFILE: 'the AWS SDK and CLI',
  AWS_REGION: 'the AWS SDK and CLI',
  AWS_ENDPOINT_URL: 'the AWS SDK',
  AWS_ENDPOINT_URL_DYNAMODB: 'the AWS SDK',
  NODE_OPTIONS: 'Node.js',
  NODE_ENV: 'Node.js convention',
  SPOT_ITN: "AWS Node Termination Handler's event kinds",
  SCHEDULED_EVENT: "AWS Node Termination Handler's event kinds",
  REBALANCE_RECOMMENDATION: "AWS Node Termination Handler's event kinds",
  STATE_CHANGE: "AWS Node Termination Handler's event kinds",
  ASG_LIFECYCLE: "AWS Node Termination Handler's event kinds",
  WEBHOOK_HEADERS: "AWS Node Termination Handler's chart",
  LOG_WINDOW_BYTES: 'a setting that went away, listed as such in docs/configuration.md',
};

/** Every source file of the code a name may live in. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mts|mjs)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}
const CODE = ['lib', 'functions', 'infra']
  .flatMap(sources)
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');

const SETTING_ENV = new Set(SETTING_NAMES.map((n) => settingOf(n).env).filter((e): e is string => e !== undefined));

/** Inline code spans and code-block lines: where the docs name things. */
function codeSpans(markdown: string): string[] {
  const spans: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.trimStart().startsWith('```')) {
      fenced = !fenced;
      continue;
    }
    if (fenced) spans.push(line);
    else for (const m of line.matchAll(/`([^`]+)`/g)) spans.push(m[1]!);
  }
  return spans;
}

/** An environment variable's shape: upper case with an underscore. */
const ENV_NAME = /\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b/g;

/** Names in `text` that are neither a setting, in the code, nor another program's. */
export function unknownEnvNames(text: string, code = CODE): string[] {
  const spans = codeSpans(text);
  // A shell variable the doc sets itself (`SIGNALS_URL=https://…` in its example) is the doc's own.
  const own = new Set(
    spans.flatMap((s) => [...s.matchAll(/^\s*(?:export\s+)?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!)),
  );
  const names = spans.flatMap((s) => [...s.matchAll(ENV_NAME)].map((m) => m[0])).filter((n) => !own.has(n));
  return [
    ...new Set(
      names.filter(
        (n) => !SETTING_ENV.has(n) && !Object.hasOwn(FOREIGN_NAMES, n) && !new RegExp(`\\b${n}\\b`).test(code),
      ),
    ),
  ];
}

/** `-c key=` context keys in `text` the CDK app does not read. */
export const unknownContextKeys = (text: string): string[] => [
  ...new Set(
    codeSpans(text)
      .flatMap((s) => [...s.matchAll(/(?:^|\s)-c\s+(\w+)=/g)].map((m) => m[1]!))
      // `-c key=value` is how the docs say it in general.
      .filter((k) => k !== 'key' && !CONTEXT_KEYS.includes(k)),
  ),
];

const helpOf = new Map<string, Promise<string>>();
async function help(command: string): Promise<string> {
  if (!helpOf.has(command)) {
    helpOf.set(
      command,
      (async () => {
        const io = captureIo({});
        await COMMANDS[command]!(['--help'], io);
        return io.out();
      })(),
    );
  }
  return helpOf.get(command)!;
}

/** `reprise <command> … --option` uses in `text` whose option the command's help does not list. */
export async function unknownOptions(text: string): Promise<string[]> {
  const wrong: string[] = [];
  for (const span of codeSpans(text)) {
    for (const m of span.matchAll(/\breprise (\w[\w-]*)((?:\s+[^\s|;&#]+|\s+#[^\s]*)*)/g)) {
      const command = m[1]!;
      if (!Object.hasOwn(COMMANDS, command)) continue;
      const options = [...m[2]!.matchAll(/(?:^|\s)(--[a-z][a-z0-9-]*)/g)].map((o) => o[1]!);
      const listed = await help(command);
      for (const o of options) {
        if (o === '--help' || o === '--json') continue;
        if (!new RegExp(`(^|[\\s,(])${o}(?![a-z0-9-])`, 'm').test(listed)) wrong.push(`reprise ${command} ${o}`);
      }
    }
  }
  return [...new Set(wrong)];
}

/** Node.js versions the text requires ("Node.js 20 or newer", "Node 20+", `nodejs20.x`) other than the supported one. */
export function otherNodeRequirements(text: string): string[] {
  const required = [
    ...text.matchAll(/\bNode(?:\.js)? (\d+)(?:\+| or (?:newer|later|above)| and (?:newer|later|above))/g),
    ...text.matchAll(/\bnodejs(\d+)\.x\b/g),
  ];
  return required.filter((m) => Number(m[1]) !== SUPPORTED_NODE).map((m) => m[0]);
}

describe('docs that cannot drift: every name they give exists', () => {
  it.each(DOCS)('%s names only environment variables that exist (settings, the code, or another program’s)', (file) => {
    expect(unknownEnvNames(read(file))).toEqual([]);
  });

  it.each(DOCS)('%s names only context keys the CDK app reads', (file) => {
    expect(unknownContextKeys(read(file))).toEqual([]);
  });

  it.each(DOCS)('%s gives each reprise command only options its --help lists', async (file) => {
    expect(await unknownOptions(read(file))).toEqual([]);
  });

  it.each(DOCS)(`%s requires no Node.js version but the supported one (${SUPPORTED_NODE})`, (file) => {
    expect(otherNodeRequirements(read(file))).toEqual([]);
  });

  it('each rule fails on a name that does not exist (a control)', async () => {
    const doc = [
      'The TTL is `SIGNAL_TTL_SECONDS`; `AWS_REGION` and `SIGNAL_TTL_HOURS` are fine, and `MY_URL` is set below.',
      '```sh',
      'MY_URL=https://example.com',
      'npx cdk deploy -c frobnicate=1 -c spotDrill=true',
      'npx reprise pause my-org --reason drill --frobnicate --local http://127.0.0.1:3001',
      'npx reprise replay my-org/my-repo#1 --stack Reprise',
      '```',
      'Install Node.js 20 or newer; the functions run `nodejs22.x`, Node.js 22 or later is fine.',
    ].join('\n');
    expect(unknownEnvNames(doc)).toEqual(['SIGNAL_TTL_SECONDS']);
    expect(unknownContextKeys(doc)).toEqual(['frobnicate']);
    expect(await unknownOptions(doc)).toEqual(['reprise pause --frobnicate']);
    expect(otherNodeRequirements(doc)).toEqual(['Node.js 20 or newer']);
  });
});
