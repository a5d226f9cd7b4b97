import { linearPattern, type TextPattern } from './linear-pattern.js';
import { scanned, type ScanMeter } from './scan-budget.js';

/**
 * GitHub's own failures while a job sets up its actions ("Set up job"): the runner could not
 * resolve the actions' download info, or could not download an action's archive, because GitHub's
 * action service answered with a server error. The runner files both as infrastructure failures
 * (`resolve_action`, `error_download_action`, actions/runner src/Runner.Worker/ActionManager.cs),
 * but that category reaches neither the REST API nor the webhooks, so they are read from the text.
 *
 * The evidence of one failure spans several texts, so the family is read over all of a job's texts
 * at once (what the runner wrote, by runner version):
 * - resolution, every version since 2.276: `Failed to resolve action download info.`, the runner's
 *   own sentence after its retries (a missing action or version has its own words, `Unable to
 *   resolve action …`, and is never wrapped in it); since 2.333 the cause is its own error line just
 *   before (`Service Unavailable`).
 * - download, since 2.333: `Failed to download archive '<url>' after 3 attempts.` with the cause
 *   beside it; the family only when that cause is a server error (a 4xx is the action's own
 *   address; a TLS or DNS error is the job's own network).
 * - download, before 2.333: the bare cause (`Response status code does not indicate success: 503
 *   (Service Unavailable).`) is the only error, and the warnings before it say which action failed
 *   (`Failed to download action '<url>'. Error: Response status code … 503 …`). Alone, that status
 *   line is any .NET step's own 5xx: it counts only with such a warning.
 */

/** The runner's own sentence after its resolution retries ran out. */
const RESOLVE_FAILED = linearPattern('^\\s*failed to resolve action download info\\.?\\s*$');
/** The runner's wrapper once an archive download ran out of attempts (runner 2.333+). */
const DOWNLOAD_FAILED = linearPattern("^\\s*failed to download archive '[^'\\n]+' after \\d+ attempts?\\.?\\s*$");
/** A download retry that GitHub answered with a server error: the runner's warning. */
const DOWNLOAD_5XX_WARNING = linearPattern(
  "^\\s*failed to download action '[^'\\n]+'\\. error:? response status code does not indicate success: 5\\d\\d\\b",
);

const STATUS_5XX = 'response status code does not indicate success: 5\\d\\d \\([^)\\n]*\\)\\.?';
const REASON_5XX = 'service unavailable|internal server error|bad gateway|gateway time-?out';
/** A cause the runner writes on its own line: a server error, nothing else. */
const SERVER_ERROR = linearPattern(`^\\s*(?:${STATUS_5XX}|(?:${REASON_5XX})\\.?)\\s*$`);
/** The bare status line alone (before 2.333 the runner's last error was nothing else). */
const STATUS_ONLY = linearPattern(`^\\s*${STATUS_5XX}\\s*$`);
/** A timeout reaching the resolution service, GitHub's own: a cause of resolution only. */
const RESOLVE_TIMEOUT = linearPattern('^\\s*the http request timed out after [0-9:.]+\\.?\\s*$');

/** One text of the action setup family, by the name tests and documentation know it by. */
export interface SetupPattern {
  readonly name: string;
  readonly re: TextPattern;
}

/** The texts of the family, by name, for tests and documentation that must cover every pattern. */
export const ACTION_SETUP_PATTERNS: readonly SetupPattern[] = [
  { name: 'action-resolve', re: RESOLVE_FAILED },
  { name: 'action-download', re: DOWNLOAD_FAILED },
  { name: 'action-download-warning', re: DOWNLOAD_5XX_WARNING },
  { name: 'action-server-error', re: SERVER_ERROR },
  { name: 'action-resolve-timeout', re: RESOLVE_TIMEOUT },
];

/** What the action setup family read over a job's texts: the platform failure it found, and the texts it accounts for. */
export interface SetupReading {
  /** `action-resolve` or `action-download`, when the job died setting up its actions on GitHub's side. */
  readonly platform?: 'action-resolve' | 'action-download';
  /** The failure texts the family accounts for (by index): they are no failure of the job's own. */
  readonly consumed: ReadonlySet<number>;
}

const hit = (re: TextPattern, text: string, meter: ScanMeter): boolean => {
  meter.check();
  return re.test(scanned(text, meter.limits));
};

const NOTHING: SetupReading = { consumed: new Set() };

/**
 * Reads one job's failure texts (annotations, or `##[error]` lines of its log) and, for annotations,
 * its warnings. Warnings past the window's text limit are not read: missing one can only leave a job
 * alone. Pure; every pattern is linear and metered.
 */
export function readActionSetup(texts: readonly string[], warnings: readonly string[], meter: ScanMeter): SetupReading {
  const resolve: number[] = [];
  const download: number[] = [];
  const serverErrors: number[] = [];
  const timeouts: number[] = [];
  texts.forEach((t, i) => {
    if (hit(RESOLVE_FAILED, t, meter)) resolve.push(i);
    else if (hit(DOWNLOAD_FAILED, t, meter)) download.push(i);
    else if (hit(SERVER_ERROR, t, meter)) serverErrors.push(i);
    else if (hit(RESOLVE_TIMEOUT, t, meter)) timeouts.push(i);
  });
  if (resolve.length > 0) {
    return { platform: 'action-resolve', consumed: new Set([...resolve, ...serverErrors, ...timeouts]) };
  }
  if (download.length > 0) {
    // The wrapper says nothing of the cause: the family only with a server error beside it.
    if (serverErrors.length === 0) return NOTHING;
    return { platform: 'action-download', consumed: new Set([...download, ...serverErrors]) };
  }
  const statusOnly = serverErrors.filter((i) => hit(STATUS_ONLY, texts[i] ?? '', meter));
  if (statusOnly.length === 0) return NOTHING;
  const read = warnings.slice(0, meter.limits.textsPerWindow);
  if (!read.some((w) => hit(DOWNLOAD_5XX_WARNING, w, meter))) return NOTHING;
  return { platform: 'action-download', consumed: new Set(statusOnly) };
}
