import type { Node } from 'constructs';
import {
  convertTime,
  type Setting,
  SETTING_NAMES,
  SETTINGS,
  settingOf,
  type Value,
} from '../lib/config/settings-schema.js';
import type { RepriseProps } from './props/reprise-props.js';
import { asProp, setAt } from './props/resolve.js';
import { WebhookAccess } from './webhook-access.js';

/**
 * Context keys the app reads (`npx cdk deploy -c githubUrl=… -c alarmEmail=…`): every setting the schema gives
 * one. Values given on the command line arrive as strings, values from cdk.json keep their JSON type: both are
 * accepted.
 */
export const CONTEXT_KEYS: readonly string[] = SETTING_NAMES.map((n) => settingOf(n).context).filter(
  (k): k is string => k !== undefined,
);

/** One context value through the setting's parser, in the setting's own unit; undefined when unset. */
function read(node: Node, s: Setting): Value | undefined {
  const key = s.context as string;
  const raw: unknown = node.tryGetContext(key);
  if (raw === undefined || raw === '') return undefined;
  if (s.unit !== undefined && s.contextUnit !== undefined) {
    const n = typeof raw === 'number' ? raw : Number(String(raw).trim());
    if (!Number.isFinite(n))
      throw new Error(`context ${key}: expected a number of ${s.contextUnit}, got "${String(raw)}"`);
    return s.parse(convertTime(n, s.contextUnit, s.unit), `context ${key} (${String(raw)} ${s.contextUnit})`);
  }
  // A literal `\n` separates lines too: shells make real newlines awkward in `-c`.
  const value = s.envSeparator === '\n' && typeof raw === 'string' ? raw.replace(/\\n/g, '\n') : raw;
  return s.parse(value, `context ${key}`);
}

/** The stack name and the {@link RepriseProps} given as context; anything not given keeps the construct default. */
export function propsFromContext(node: Node): { stackName: string; props: RepriseProps } {
  const props: Record<string, unknown> = { alarms: {} };
  for (const name of SETTING_NAMES) {
    const s = settingOf(name);
    if (s.context === undefined || s.prop === undefined || s.custom) continue;
    const value = read(node, s);
    if (value !== undefined) setAt(props, s.prop, asProp(s, value));
  }
  const kind = read(node, SETTINGS.webhookAccess) as 'httpApi' | 'functionUrl' | undefined;
  const rateLimit = read(node, SETTINGS.apiRateLimit) as number | undefined;
  const burstLimit = read(node, SETTINGS.apiBurstLimit) as number | undefined;
  if (kind === 'functionUrl') props.webhookAccess = WebhookAccess.functionUrl();
  else if (rateLimit !== undefined || burstLimit !== undefined) {
    props.webhookAccess = WebhookAccess.httpApi({ rateLimit, burstLimit });
  }
  // A JSON list of clusters (`-c 'eksClusters=[{"name":"runners"}]'`), checked by the setting's parser.
  const eksClusters = read(node, SETTINGS.eksClusters) as string | undefined;
  if (eksClusters !== undefined) props.eksClusters = JSON.parse(eksClusters);
  const stackName = (read(node, SETTINGS.stackName) as string | undefined) ?? SETTINGS.stackName.default;
  return { stackName, props: props as RepriseProps };
}
