import { compileExtraPatterns } from '../../lib/classify/patterns.js';
import { parseEksClusters } from '../../lib/config/eks-clusters.js';
import type { RepriseEksCluster } from './nested-props.js';
import type { ResolvedProps } from './props-schema.js';

/** What the settings' parsers cannot see alone: checks across props, and what only a synth may refuse. */

function check(ok: boolean, message: string): void {
  if (!ok) throw new Error(`Reprise: ${message}`);
}

/**
 * The clusters as the function's `EKS_CLUSTERS`: a list of objects, checked by the setting's
 * parser. A deployed cluster is reached through DescribeCluster and the function's role, so an
 * endpoint, a CA file or a token (which would sit in plain sight in the environment) is refused.
 */
export function eksClustersSetting(clusters: readonly RepriseEksCluster[] | undefined): string | undefined {
  if (clusters === undefined || clusters.length === 0) return undefined;
  for (const c of clusters as unknown as readonly Record<string, unknown>[]) {
    const local = ['endpoint', 'caFile', 'token'].filter((k) => c[k] !== undefined);
    if (local.length > 0) {
      throw new Error(
        `Reprise: eksClusters: ${local.join(', ')} are for the local runtime only (cluster ${String(c.name)})`,
      );
    }
  }
  try {
    return JSON.stringify(parseEksClusters(clusters, 'eksClusters'));
  } catch (err) {
    throw new Error(`Reprise: ${(err as Error).message}`, { cause: err });
  }
}

/** Checks across the resolved props: an https API, attempts in order, extra patterns the worker compiles. */
export function checkResolved(resolved: ResolvedProps, githubApiUrl: string): void {
  check(/^https:\/\/[^/\s]+/.test(resolved.githubApiUrl), `githubApiUrl must be an https URL, got ${githubApiUrl}`);
  check(resolved.textOnlyMaxAttempts <= resolved.maxAttempts, 'textOnlyMaxAttempts must be in 1..maxAttempts');
  for (const p of resolved.extraPatterns) {
    if (/[\r\n]/.test(p)) throw new Error('Reprise: an extra pattern cannot contain a line break');
  }
  // The same compiler the worker uses: what it would refuse fails the synth instead.
  try {
    compileExtraPatterns(resolved.extraPatterns);
  } catch (err) {
    throw new Error(`Reprise: extraPatterns holds an invalid regular expression: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
