import type { EventBridgeEvent } from 'aws-lambda';
import type { SignalKind } from '../model.js';

/** Any event EventBridge may hand the signal function; the detail is checked, not trusted. */
export type Ec2Event = EventBridgeEvent<string, unknown>;

export const SPOT_INTERRUPTION = 'EC2 Spot Instance Interruption Warning';
export const REBALANCE_RECOMMENDATION = 'EC2 Instance Rebalance Recommendation';
export const STATE_CHANGE = 'EC2 Instance State-change Notification';

/** Only these states end a runner; pending, running, stopping and stopped are noise here. */
export const LOST_STATES: ReadonlySet<string> = new Set(['shutting-down', 'terminated']);

const INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;

/** What one EC2 event says about one instance. */
export interface Ec2Signal {
  readonly instanceId: string;
  readonly kind: SignalKind;
  readonly eventTime: string;
  /** EventBridge's event id: the same event delivered twice carries the same id. */
  readonly eventId: string;
  readonly region: string;
  readonly account: string;
  /** The instance action or state, for the record and the log. */
  readonly reason: string;
}

export type Ec2EventParse = { readonly signal: Ec2Signal } | { readonly ignored: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Reads an `aws.ec2` event. One function may serve several rules (and a rule may be edited by
 * hand), so the detail-type and state are checked here rather than trusted to the rule.
 */
export function parseEc2Event(event: Ec2Event): Ec2EventParse {
  if (typeof event !== 'object' || event === null) return { ignored: 'not an EventBridge event' };
  if (event.source !== 'aws.ec2') return { ignored: `source ${String(event.source)}` };
  const detailType = event['detail-type'];
  const detail = (typeof event.detail === 'object' && event.detail !== null ? event.detail : {}) as Record<
    string,
    unknown
  >;

  let kind: SignalKind;
  let reason: string;
  switch (detailType) {
    case SPOT_INTERRUPTION:
      kind = 'spot-interruption';
      reason = `instance-action ${str(detail['instance-action']) ?? 'unknown'}`;
      break;
    case REBALANCE_RECOMMENDATION:
      kind = 'rebalance';
      reason = 'rebalance recommendation';
      break;
    case STATE_CHANGE: {
      const state = str(detail.state);
      if (!state || !LOST_STATES.has(state)) return { ignored: `state ${state ?? 'missing'}` };
      kind = 'terminated';
      reason = `state ${state}`;
      break;
    }
    default:
      return { ignored: `detail-type ${String(detailType)}` };
  }

  const instanceId = str(detail['instance-id']);
  if (!instanceId || !INSTANCE_ID.test(instanceId)) {
    return { ignored: `${detailType} without a valid detail.instance-id` };
  }
  const eventTime = str(event.time);
  if (!eventTime || Number.isNaN(Date.parse(eventTime))) return { ignored: `${detailType} without a valid time` };
  const eventId = str(event.id);
  if (!eventId) return { ignored: `${detailType} without an id` };

  return {
    signal: {
      instanceId,
      kind,
      eventTime,
      eventId,
      region: str(event.region) ?? '',
      account: str(event.account) ?? '',
      reason,
    },
  };
}
