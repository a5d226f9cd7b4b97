import type {
  Annotation,
  EvidenceFamily,
  EvidenceSource,
  JobFacts,
  JobVerdict,
  RunnerSignal,
  Verdict,
} from '../model.js';
import { exactSignals, selfCausedStops } from './exact-signals.js';
import { readInfraCategory } from './infra-category.js';
import { isOwnCancel } from './own-cancel.js';
import type { TextPattern } from './linear-pattern.js';
import { EXIT_CODE, matches } from './patterns.js';
import { annotationText, examineJob, type TextFindings } from './text-findings.js';
import { firstByPrecedence, type PrecedenceRow } from './precedence.js';
import { BudgetSpent, ScanBudget, type ScanMeter } from './scan-budget.js';

/** Annotations as read from GitHub, or the status that made them unreadable. */
/**
 * A job's annotations; `unavailable` when GitHub would not show them (its status), `tooMany`
 * when there were more than are read (how many were), which cuts the job short.
 */
export type AnnotationEvidence =
  readonly Annotation[] | { readonly unavailable: number } | { readonly tooMany: number };
/** `##[error]` lines from the job log's head and tail, or why there are none. */
export type LogEvidence = { readonly errors: readonly string[] } | 'missing' | 'unreadable';

/** Everything the classifier reads of one job: its runner's signals, its annotations and, once asked for, its log. */
export interface JobEvidence {
  readonly signals: readonly RunnerSignal[];
  readonly annotations: AnnotationEvidence;
  /** Undefined until fetched: the classifier asks for it when it needs it. */
  readonly log?: LogEvidence;
  /** reprise ended this attempt early (ledger): the bot's cancel note on the job is its own, not a veto. */
  readonly endedByReprise?: boolean;
}

/** A job's verdict, or `need_log`: the classifier cannot settle it without the job's log. */
export type Classification = { readonly kind: 'verdict'; readonly verdict: JobVerdict } | { readonly kind: 'need_log' };

/** What one family found: where it was read, the text shown for it, and its data. */
interface Finding {
  readonly source: EvidenceSource;
  readonly text: string;
  readonly pattern?: string;
  readonly veto?: JobVerdict['veto'];
  readonly lostAt?: string;
  readonly logUnavailable?: JobVerdict['logUnavailable'];
  readonly cutShort?: true;
}

/** The families a step found, each asked only when every family above it found nothing. */
type Found = Partial<Record<PrecedenceRow['family'], () => Finding | undefined>>;

function verdict(job: JobFacts, v: Verdict, family: EvidenceFamily, f: Finding): Classification {
  return {
    kind: 'verdict',
    verdict: {
      job,
      verdict: v,
      source: f.source,
      evidence: f.text.slice(0, 200),
      family,
      ...(f.pattern !== undefined && { pattern: f.pattern }),
      ...(f.veto && { veto: f.veto }),
      ...(f.cutShort && { cutShort: f.cutShort }),
      ...(f.lostAt && { lostAt: f.lostAt }),
      ...(f.logUnavailable && { logUnavailable: f.logUnavailable }),
    },
  };
}

/** The verdict of the first family found, in the order of the precedence table. */
function byPrecedence(job: JobFacts, found: Found): Classification | undefined {
  const first = firstByPrecedence(found);
  return first && verdict(job, first.row.verdict, first.row.family, first.hit);
}

/**
 * Classifies one failed or cancelled job as infra, genuine, inconclusive or vetoed. Pure: when the annotations cannot
 * settle it and the log has not been read, it answers `need_log` and is called again.
 *
 * The work is bounded by `budget`, shared by every job of one decision: a job whose evidence
 * cannot be read within it is `inconclusive` and marked `cutShort`, which leaves the run alone.
 */
export function classifyJob(
  job: JobFacts,
  ev: JobEvidence,
  extra: readonly TextPattern[],
  budget: ScanBudget = new ScanBudget(),
): Classification {
  const meter = budget.window();
  try {
    return classifyWithin(job, ev, extra, meter);
  } catch (err) {
    if (!(err instanceof BudgetSpent)) throw err;
    const readable = Array.isArray(ev.annotations) || 'tooMany' in ev.annotations;
    const source: EvidenceSource =
      ev.log === undefined ? (readable ? 'annotations' : 'unreadable') : readable ? 'annotations+logs' : 'logs';
    return verdict(job, 'inconclusive', 'none', {
      source,
      text: `evidence not read to the end: ${err.message}`,
      cutShort: true,
    });
  }
}

/** A job's annotations read: whether they could be, and what their failure texts found. */
interface AnnotationsRead {
  readonly readable: boolean;
  readonly findings: TextFindings;
}

function readAnnotations(
  job: JobFacts,
  ev: JobEvidence,
  extra: readonly TextPattern[],
  meter: ScanMeter,
): AnnotationsRead {
  if ('tooMany' in ev.annotations) {
    // What was left unread could be a real failure beside the loss.
    throw new BudgetSpent(`more than ${ev.annotations.tooMany} annotations; the rest were not read`);
  }
  const annotations = Array.isArray(ev.annotations) ? (ev.annotations as readonly Annotation[]) : undefined;
  const failing = (annotations ?? []).filter((a) => a.level.toLowerCase() === 'failure');
  meter.count(failing.length, 'failure annotations');
  const failures = failing
    .map((a) => annotationText(a, meter))
    .filter((t) => !isOwnCancel(t, ev.endedByReprise === true));
  const warnings = (annotations ?? []).filter((a) => a.level.toLowerCase() === 'warning').map((a) => a.message);
  // GitHub's own name for the failure, where it shows one, is read first and names the family over the text.
  const category = readInfraCategory([job, ...(annotations ?? [])]);
  const findings = examineJob(failures, warnings, extra, meter);
  if (category) findings.platform = category.platform;
  return { readable: annotations !== undefined, findings };
}

/** What the annotations and the runner signals found, by family. */
function annotationFamilies(job: JobFacts, ev: JobEvidence, f: TextFindings, meter: ScanMeter): Found {
  const exact = exactSignals(ev.signals)[0];
  // A state change the job itself could have caused: a loss, with the strength of text only.
  const stop = exact ? undefined : selfCausedStops(ev.signals)[0];
  const lossFound = f.loss !== undefined || f.platform !== undefined || exact !== undefined || stop !== undefined;
  return {
    veto: () =>
      f.veto && { source: 'annotations', text: f.veto.text, pattern: `veto-${f.veto.kind}`, veto: f.veto.kind },
    'exit-code': () => exitCodeIn(f.real, 'annotations', meter),
    // A real failure beside the loss (a test failed, then the runner died in an always() step).
    'failure-text': () =>
      job.conclusion !== 'cancelled' && lossFound && f.real.length > 0
        ? { source: 'annotations', text: f.real[0] ?? '' }
        : undefined,
    signal: () =>
      exact && {
        source: 'signal',
        text: `${exact.kind} for ${exact.runnerKey} at ${exact.eventTime}`,
        lostAt: exact.eventTime,
      },
    'runner-loss': () => named(f.loss, (name) => ({ source: 'annotations', text: `pattern ${name}`, pattern: name })),
    platform: () => named(f.platform, (name) => ({ source: 'platform', text: `platform ${name}`, pattern: name })),
    'state-change': () =>
      stop && {
        source: 'state-change',
        text: `EC2 state change for ${stop.runnerKey} at ${stop.eventTime}, ${UNWARNED}`,
      },
  };
}

/** A finding for a pattern that matched, by its name; undefined when none did. */
const named = (name: string | undefined, f: (name: string) => Finding): Finding | undefined =>
  name ? f(name) : undefined;

const UNWARNED = 'no spot warning, rebalance recommendation or fleet termination before it: counted as text';

/** The first text that says a step exited non-zero, as a finding. */
function exitCodeIn(texts: readonly string[], source: EvidenceSource, meter: ScanMeter): Finding | undefined {
  const text = texts.find((t) => matches(EXIT_CODE, t, meter));
  return text === undefined ? undefined : { source, text, pattern: 'exit-code' };
}

function classifyWithin(
  job: JobFacts,
  ev: JobEvidence,
  extra: readonly TextPattern[],
  meter: ScanMeter,
): Classification {
  const cancelled = job.conclusion === 'cancelled';
  const { readable, findings } = readAnnotations(job, ev, extra, meter);
  const decided = byPrecedence(job, annotationFamilies(job, ev, findings, meter));
  if (decided) return decided;

  // Cancelled jobs reach their log only when the cancellation echo is all they carry.
  const wantsLog = cancelled ? readable && findings.echoOnly : !readable || findings.real.length === 0;
  if (!wantsLog) {
    if (cancelled) return nothingFound(job, readable ? 'annotations' : 'unreadable', 'cancelled, no evidence');
    const text = findings.real[0];
    if (text !== undefined) return verdict(job, 'genuine', 'failure-text', { source: 'annotations', text });
    return nothingFound(job, 'annotations', 'failed without a runner-loss annotation');
  }
  if (ev.log === undefined) return { kind: 'need_log' };
  return classifyByLog(job, ev.log, readable, findings, extra, meter);
}

/** No family decided: a cancelled job is inconclusive, a failed one genuine. */
const nothingFound = (
  job: JobFacts,
  source: EvidenceSource,
  text: string,
  logUnavailable?: JobVerdict['logUnavailable'],
): Classification =>
  verdict(job, job.conclusion === 'cancelled' ? 'inconclusive' : 'genuine', 'none', {
    source,
    text,
    ...(logUnavailable && { logUnavailable }),
  });

/** The second step: the log's `##[error]` lines, read when the annotations settled nothing. */
function classifyByLog(
  job: JobFacts,
  log: LogEvidence,
  readable: boolean,
  fromAnn: TextFindings,
  extra: readonly TextPattern[],
  meter: ScanMeter,
): Classification {
  const source: EvidenceSource = readable ? 'annotations+logs' : 'logs';
  if (log === 'missing' || log === 'unreadable') {
    return nothingFound(job, readable ? source : 'unreadable', `no annotation evidence; log ${log}`, log);
  }
  meter.count(log.errors.length, 'error lines in the log window');
  const fromLog = examineJob(log.errors, [], extra, meter);
  const realAnywhere = [...fromAnn.real, ...fromLog.real];
  const found: Found = {
    veto: () =>
      fromLog.veto && {
        source,
        text: fromLog.veto.text,
        pattern: `veto-${fromLog.veto.kind}`,
        veto: fromLog.veto.kind,
      },
    'exit-code': () => exitCodeIn(fromLog.real, source, meter),
    'failure-text': () =>
      realAnywhere.length > 0 && job.conclusion !== 'cancelled' ? { source, text: realAnywhere[0] ?? '' } : undefined,
    'runner-loss': () => named(fromLog.loss, (name) => ({ source, text: `log pattern ${name}`, pattern: name })),
    platform: () =>
      named(fromLog.platform, (name) => ({ source: 'platform', text: `log platform ${name}`, pattern: name })),
  };
  return byPrecedence(job, found) ?? nothingFound(job, source, 'no runner-loss evidence in annotations or log');
}
