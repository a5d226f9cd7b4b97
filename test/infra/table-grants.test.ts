import { beforeAll, describe, expect, it } from 'vitest';
import { HANDLERS } from '../../infra/functions/handlers.js';
import { FUNCTION_STORES, STORE_ACCESS, tableGrant } from '../../lib/ledger/access.js';
import { keys } from '../../lib/ledger/keys.js';
import type { FunctionName } from '../../lib/config/settings-schema.js';
import { allows, type PolicyStatement, roleOfFunction, statementsOfRole } from '../support/iam-policy.js';
import { synthReprise } from './synth.js';

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

let resources: Resources;
let tableId: string;
beforeAll(() => {
  resources = synthReprise().template.toJSON().Resources as Resources;
  const tables = Object.keys(resources).filter((id) => resources[id]!.Type === 'AWS::DynamoDB::Table');
  expect(tables).toHaveLength(1);
  tableId = tables[0]!;
}, 120_000);

const FUNCTIONS = Object.keys(HANDLERS) as FunctionName[];
const actionsOf = (s: PolicyStatement) => (Array.isArray(s.Action) ? s.Action : [s.Action]) as string[];

/** A template resource as a string: the table's ARN by its logical id. */
const resolve = (r: unknown): string => {
  if (typeof r === 'string') return r;
  const att = (r as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
  if (att && att[1] === 'Arn') return `arn:aws:dynamodb:eu-west-1:123456789012:table/${att[0]}`;
  throw new Error(`cannot resolve ${JSON.stringify(r)}`);
};

function functionId(fn: FunctionName): string {
  const found = Object.entries(resources).filter(
    ([, r]) =>
      r.Type === 'AWS::Lambda::Function' &&
      (r.Properties?.Environment as { Variables?: Record<string, unknown> })?.Variables?.POWERTOOLS_SERVICE_NAME ===
        HANDLERS[fn].serviceName,
  );
  expect(found).toHaveLength(1);
  return found[0]![0];
}

const tableStatements = (fn: FunctionName) =>
  statementsOfRole(resources, roleOfFunction(resources, functionId(fn))).filter((s) =>
    actionsOf(s).some((a) => a.startsWith('dynamodb:')),
  );

/** What IAM decides for one request of `fn` on the table. */
const may = (fn: FunctionName, action: string, pk?: string) =>
  allows(
    tableStatements(fn),
    {
      action: `dynamodb:${action}`,
      resource: resolve({ 'Fn::GetAtt': [tableId, 'Arn'] }),
      ...(pk && { leadingKeys: [pk] }),
    },
    resolve,
  );

/** One partition key of every kind the table holds. */
const EVERY_KIND = [
  keys.delivery('g'),
  keys.runAttempt(1, 2, 1),
  keys.rerunOutcome(1, 2, 2),
  keys.runnerSignal('runner-1', '2026-01-01T00:00:00Z', 'e'),
  keys.signalPost('e'),
  keys.runnerJob('runner-1', 9),
  keys.budgetWindow(1),
  keys.pacing(1),
  keys.outcomeAt(1, '2026-01-01T00:00:00Z', 'a'),
  keys.breaker(1),
  keys.queuedJob(1, 2, 3),
  keys.queuedInstallation(1),
  keys.requeueHead(1, 2, 'sha'),
  keys.reconcileCursor('ledger'),
  keys.queueMessage('work', 'm'),
  keys.redelivery('g'),
  keys.branchRun(1, 2, 3, 'main'),
  keys.signalSignature('sig'),
  keys.repoOutcomeAt(1, 2, '2026-01-01T00:00:00Z', 'a'),
  keys.repoBreaker(1, 2),
  keys.recoveryEnd(1, 2, 1),
].map((k) => k.pk);

/** A statement with its lists sorted, as CDK may order them. */
const normal = (s: PolicyStatement) => {
  const like = s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
  return {
    ...s,
    Action: [...actionsOf(s)].sort(),
    ...(s.Condition && {
      Condition: {
        ...s.Condition,
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [like].flat().map(String).sort() },
      },
    }),
  };
};

const WRITES = ['PutItem', 'UpdateItem', 'DeleteItem'];

describe("each function's table access is limited to the key prefixes and actions it uses (dynamodb:LeadingKeys)", () => {
  it.each(FUNCTIONS)(
    "%s: the synthesized policy names exactly the declared actions and leading keys, each on the table's ARN only",
    (fn) => {
      const statements = tableStatements(fn).map(normal);
      const grant = tableGrant(fn);
      const table = { 'Fn::GetAtt': [tableId, 'Arn'] };
      const expected = [
        ...grant.keyed.map((g) =>
          normal({
            Effect: 'Allow',
            Action: g.actions.map((a) => `dynamodb:${a}`),
            Resource: table,
            Condition: {
              'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...g.leadingKeys] },
              Null: { 'dynamodb:LeadingKeys': 'false' },
            },
          }),
        ),
        ...(grant.scan ? [normal({ Effect: 'Allow', Action: 'dynamodb:Scan', Resource: table })] : []),
      ];
      expect(statements).toEqual(expect.arrayContaining(expected));
      expect(statements).toHaveLength(expected.length);
    },
  );

  it('the internet-facing signal intake writes signal items only: a runner signal and its post time, nothing else, and reads only which jobs run on a runner', () => {
    expect(may('signalIntake', 'PutItem', keys.runnerSignal('r', 't', 'e').pk)).toBe(true);
    expect(may('signalIntake', 'PutItem', keys.signalPost('e').pk)).toBe(true);
    expect(may('signalIntake', 'GetItem', keys.signalPost('e').pk)).toBe(true);
    // An HMAC post's signature, marked used so the same body cannot count twice.
    expect(may('signalIntake', 'PutItem', keys.signalSignature('sig').pk)).toBe(true);
    expect(may('signalIntake', 'GetItem', keys.signalSignature('sig').pk)).toBe(false);
    // Early recovery's requests name the jobs on a reported runner: one Query of them, no write.
    expect(may('signalIntake', 'Query', keys.runnerJobs('r').pk)).toBe(true);
    for (const action of [...WRITES, 'GetItem'])
      expect(may('signalIntake', action, keys.runnerJobs('r').pk), `${action} RUNNERJOB#`).toBe(false);
    const own = ['RUNNER#', 'SIGNALPOST#', 'SIGNALSIG#', 'RUNNERJOB#'];
    const other = EVERY_KIND.filter((pk) => !own.some((p) => pk.startsWith(p)));
    expect(other.length).toBeGreaterThan(10);
    for (const pk of other) {
      for (const action of [...WRITES, 'GetItem', 'Query'])
        expect(may('signalIntake', action, pk), `${action} ${pk}`).toBe(false);
    }
    // Not even its own kind beyond what it sends: no update, delete or read of a runner's signals.
    for (const action of ['UpdateItem', 'DeleteItem', 'GetItem', 'Query']) {
      expect(may('signalIntake', action, 'RUNNER#r')).toBe(false);
    }
    expect(may('signalIntake', 'Scan')).toBe(false);
    expect(may('signalIntake', 'BatchWriteItem', 'RUNNER#r')).toBe(false);
  });

  it('a request that names no partition key (a Scan, or an empty set) is refused to every function but the reconciler, whose sweep scans', () => {
    for (const fn of FUNCTIONS) {
      expect(may(fn, 'Scan'), fn).toBe(fn === 'reconciler');
      expect(may(fn, 'PutItem'), `${fn} PutItem without a key`).toBe(false);
    }
  });

  it('no function can plant a runner signal but the two signal recorders, and none but the worker and the reconciler touch run attempts', () => {
    const signal = keys.runnerSignal('r', 't', 'e').pk;
    expect(FUNCTIONS.filter((fn) => may(fn, 'PutItem', signal)).sort()).toEqual(['ec2Signal', 'signalIntake']);
    const run = keys.runAttempt(1, 2, 1).pk;
    expect(FUNCTIONS.filter((fn) => may(fn, 'UpdateItem', run)).sort()).toEqual(['reconciler', 'worker']);
    expect(FUNCTIONS.filter((fn) => may(fn, 'PutItem', run)).sort()).toEqual(['reconciler', 'worker']);
    expect(FUNCTIONS.filter((fn) => may(fn, 'DeleteItem', run)).sort()).toEqual(['reconciler', 'worker']);
  });

  it("the intake's grant cannot create, replace or delete run-attempt claims: it reads the prior attempt, and writes its outcome marker under a key prefix of its own", () => {
    const claim = keys.runAttempt(1, 2, 1).pk;
    for (const action of WRITES) expect(may('intake', action, claim), action).toBe(false);
    expect(may('intake', 'GetItem', claim)).toBe(true);
    const marker = keys.rerunOutcome(1, 2, 2);
    expect(marker.pk.startsWith('RUN#')).toBe(false);
    expect(may('intake', 'PutItem', marker.pk)).toBe(true);
    // IAM's LeadingKeys pattern of the claims (RUN#*) does not reach the markers' partition.
    expect(may('worker', 'PutItem', marker.pk)).toBe(true);
    expect(may('signalIntake', 'PutItem', marker.pk)).toBe(false);
  });

  it('only the intake records a delivery as seen; the reconciler only asks whether it was', () => {
    const delivery = keys.delivery('g').pk;
    expect(FUNCTIONS.filter((fn) => may(fn, 'PutItem', delivery))).toEqual(['intake']);
    expect(FUNCTIONS.filter((fn) => may(fn, 'GetItem', delivery)).sort()).toEqual(['intake', 'reconciler']);
  });

  it('no function holds the local queue journal, batch operations, or a table-wide action', () => {
    const queue = keys.queueMessage('work', 'm').pk;
    for (const fn of FUNCTIONS) {
      for (const action of [...WRITES, 'GetItem', 'Query'])
        expect(may(fn, action, queue), `${fn} ${action}`).toBe(false);
      const names = tableStatements(fn).flatMap(actionsOf);
      expect(
        names.filter((a) => /Batch|Transact|PartiQL|DescribeTable|\*/.test(a)),
        fn,
      ).toEqual([]);
    }
  });

  it('every store a function opens is declared, and every declared store is opened by some function', () => {
    const opened = new Set(Object.values(FUNCTION_STORES).flatMap((f) => f.stores));
    expect([...opened].sort()).toEqual(Object.keys(STORE_ACCESS).sort());
  });
});
