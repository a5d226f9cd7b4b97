/**
 * The path of one decision: the modules a completed red `workflow_run` delivery crosses from the
 * intake's HTTP handler to the worker's `rerun-failed-jobs` request, in the order it runs.
 *
 * Definition (kept from one measure to the next): a step is a call that hands the delivery on, as
 * its payload, the message built from it or the decision about it, from one module of lib/ or
 * functions/ into another: the entry points and flow functions that carry it, and the parsers,
 * rules, stores and GitHub calls they hand it to. A step is two crossings: the call and its return.
 * What a callee does inside itself (a store's keys and table calls, the GitHub client under the
 * re-run call, the classifier under the verdicts) is not followed: each is entered and left once.
 *
 * Each step is checked against the code: the callee defines the function named, and the caller
 * imports the callee, or (a callee passed in as a dependency) the module that assembles them does.
 * `npx tsx test/lint/decision-path.ts` prints the path and its figures; the test keeps it true.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { importsOf } from './import-cycles.js';

/** One call on the path: from the caller's module into the callee's, by the callee's function. */
export interface Step {
  readonly from: string;
  readonly to: string;
  readonly fn: string;
  /** The module that imports the callee and hands it to the caller, when the caller does not. */
  readonly via?: string;
}

/** The intake: one delivery of a completed `workflow_run` with a failed conclusion. */
const INTAKE: readonly Step[] = [
  { from: 'functions/intake.ts', to: 'lib/http/lambda-http.ts', fn: 'httpLambda' },
  {
    from: 'lib/http/lambda-http.ts',
    to: 'lib/intake/webhook-intake.ts',
    fn: 'createIntake',
    via: 'lib/compose/intake.ts',
  },
  // The payload is read once, for the branch run, the outcome of a re-run and the queue message.
  { from: 'lib/intake/webhook-intake.ts', to: 'lib/webhook/workflow-run.ts', fn: 'readWorkflowRun' },
  { from: 'lib/webhook/workflow-run.ts', to: 'lib/decide/branch-staleness.ts', fn: 'isBranchEvent' },
  { from: 'lib/intake/webhook-intake.ts', to: 'lib/ledger/branch-runs.ts', fn: 'record' },
  { from: 'lib/intake/webhook-intake.ts', to: 'lib/ledger/deliveries.ts', fn: 'isSeen' },
  { from: 'lib/intake/webhook-intake.ts', to: 'lib/webhook/run-message.ts', fn: 'messageGroupId' },
  {
    from: 'lib/intake/webhook-intake.ts',
    to: 'lib/queue/sqs/sqs-run-queue.ts',
    fn: 'send',
    via: 'lib/queue/open-sqs.ts',
  },
  { from: 'lib/intake/webhook-intake.ts', to: 'lib/ledger/deliveries.ts', fn: 'markSeen' },
];

/** The worker: the queued message, decided and re-run. */
const WORKER: readonly Step[] = [
  { from: 'functions/worker.ts', to: 'lib/worker/handler.ts', fn: 'createWorkerHandler', via: 'lib/compose/worker.ts' },
  { from: 'lib/worker/handler.ts', to: 'lib/worker/record-handler.ts', fn: 'handleRecord' },
  { from: 'lib/worker/record-handler.ts', to: 'lib/webhook/run-message.ts', fn: 'parseQueueMessage' },
  { from: 'lib/worker/record-handler.ts', to: 'lib/worker/run-decision.ts', fn: 'runDecision' },
  { from: 'lib/worker/run-decision.ts', to: 'lib/ledger/run-attempts.ts', fn: 'claim', via: 'lib/worker/context.ts' },
  { from: 'lib/worker/run-decision.ts', to: 'lib/worker/evaluate.ts', fn: 'evaluateAfresh' },
  { from: 'lib/worker/evaluate.ts', to: 'lib/github/repo-config-source.ts', fn: 'load' },
  { from: 'lib/worker/evaluate.ts', to: 'lib/decide/decide.ts', fn: 'decide' },
  { from: 'lib/worker/evaluate.ts', to: 'lib/worker/gather-verdicts.ts', fn: 'gatherVerdicts' },
  { from: 'lib/worker/run-decision.ts', to: 'lib/worker/record-decision.ts', fn: 'recordOutcome' },
  { from: 'lib/worker/run-decision.ts', to: 'lib/worker/pace-slot.ts', fn: 'takePaceSlot' },
  { from: 'lib/worker/run-decision.ts', to: 'lib/worker/budget-unit.ts', fn: 'takeUnit' },
  { from: 'lib/worker/run-decision.ts', to: 'lib/worker/rerun-calls.ts', fn: 'act' },
  { from: 'lib/worker/rerun-calls.ts', to: 'lib/github/repo-api.ts', fn: 'rerunFailedJobs' },
  { from: 'lib/github/repo-api.ts', to: 'lib/github/rerun-call.ts', fn: 'rerunCall' },
];

/** The whole path, intake then worker. */
export const DECISION_PATH: readonly Step[] = [...INTAKE, ...WORKER];

/** What is wrong with a step against the code at `root`, or undefined when the code holds it. */
export function stepFault(step: Step, root = process.cwd()): string | undefined {
  for (const file of [step.from, step.to, ...(step.via ? [step.via] : [])]) {
    if (!existsSync(join(root, file))) return `${file} does not exist`;
  }
  const defines = new RegExp(
    `\\b(function|const|class|interface|type)\\s+${step.fn}\\b|^\\s+(async\\s+)?${step.fn}(\\(|:)`,
    'm',
  );
  if (!defines.test(readFileSync(join(root, step.to), 'utf8'))) return `${step.to} defines no ${step.fn}`;
  const importer = step.via ?? step.from;
  const imported = importsOf(join(root, importer), readFileSync(join(root, importer), 'utf8')).map((p) =>
    relative(root, p),
  );
  if (!imported.includes(step.to)) return `${importer} does not import ${step.to}`;
  return undefined;
}

/** The figures of a path: its steps, its crossings (a call and its return each) and the modules it enters. */
export function pathFigures(path: readonly Step[]): { steps: number; crossings: number; modules: number } {
  const modules = new Set(path.flatMap((s) => [s.from, s.to]));
  const steps = path.filter((s) => s.from !== s.to).length;
  return { steps, crossings: 2 * steps, modules: modules.size };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  let faults = 0;
  for (const step of DECISION_PATH) {
    const fault = stepFault(step);
    if (fault) faults += 1;
    console.log(`${step.from} -> ${step.to} (${step.fn})${fault ? `  FAULT: ${fault}` : ''}`);
  }
  const { steps, crossings, modules } = pathFigures(DECISION_PATH);
  console.log(`${steps} calls, ${crossings} crossings (call and return), ${modules} modules`);
  if (faults > 0) process.exit(1);
}
