/**
 * Kubernetes label selectors as `kubectl -l` takes them (equality-based), checked where they are
 * configured: a selector the API server would refuse fails the settings, not an interruption.
 */

/**
 * The label selector of Actions Runner Controller's runner pods (gha-runner-scale-set): every
 * runner pod carries `app.kubernetes.io/component: runner`; the listener and the controller do not.
 */
export const ARC_RUNNER_SELECTOR = 'app.kubernetes.io/component=runner';

const LABEL_KEY = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** One term of an equality-based label selector. */
export interface SelectorTerm {
  readonly key: string;
  readonly op: '=' | '!=' | 'exists' | '!exists';
  readonly value?: string;
}

/**
 * Reads an equality-based label selector (`k=v`, `k==v`, `k!=v`, `k`, `!k`, comma-separated), the
 * form `kubectl -l` takes; throws a message naming the bad term.
 */
export function parseLabelSelector(selector: string): SelectorTerm[] {
  const terms = selector.split(',').map((t) => t.trim());
  if (terms.length === 0 || terms.some((t) => t === ''))
    throw new Error(`label selector "${selector}" has an empty term`);
  return terms.map((t) => {
    const m = /^(!?)([^=!\s]+)\s*(?:(==|=|!=)\s*(\S*))?$/.exec(t);
    const key = m?.[2] ?? '';
    if (!m || !LABEL_KEY.test(key)) throw new Error(`label selector term "${t}" is not a label key or key=value`);
    if (m[1] && m[3]) throw new Error(`label selector term "${t}": "!" takes a key alone`);
    if (!m[3]) return { key, op: m[1] ? '!exists' : 'exists' };
    const value = m[4] ?? '';
    if (!LABEL_VALUE.test(value) || value.length > 63) throw new Error(`label selector term "${t}": bad value`);
    return { key, op: m[3] === '!=' ? '!=' : '=', value };
  });
}

/** Whether a pod's labels match a parsed selector, as the API server decides it. */
export function labelsMatch(labels: Readonly<Record<string, string>>, terms: readonly SelectorTerm[]): boolean {
  return terms.every((t) => {
    const has = Object.hasOwn(labels, t.key);
    if (t.op === 'exists') return has;
    if (t.op === '!exists') return !has;
    if (t.op === '=') return has && labels[t.key] === t.value;
    return !has || labels[t.key] !== t.value;
  });
}
