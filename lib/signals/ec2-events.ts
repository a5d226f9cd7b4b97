import type { EventBridgeEvent } from 'aws-lambda';
import type { SignalKind } from '../model.js';

/** Any event EventBridge may hand the signal function; the detail is checked, not trusted. */
export type Ec2Event = EventBridgeEvent<string, unknown>;

/** EventBridge's detail-type of a spot interruption warning (two minutes' notice). */
export const SPOT_INTERRUPTION = 'EC2 Spot Instance Interruption Warning';
/** EventBridge's detail-type of a rebalance recommendation (a warning, earlier and weaker). */
export const REBALANCE_RECOMMENDATION = 'EC2 Instance Rebalance Recommendation';
/** EventBridge's detail-type of an instance's state change (shutting-down, terminated, stopping). */
export const STATE_CHANGE = 'EC2 Instance State-change Notification';
/** Auto Scaling's own terminations: its decision, made before the instance stops. */
export const ASG_TERMINATE_ACTION = 'EC2 Instance-terminate Lifecycle Action';
/** EventBridge's detail-type of an Auto Scaling termination that completed. */
export const ASG_TERMINATE_SUCCESSFUL = 'EC2 Instance Terminate Successful';
/** An Auto Scaling activity that replaces an instance found already stopped follows the stop; it is no warning. */
const HEALTH_CHECK_CAUSE = /health[- ]?check/i;

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

/** An EC2 event read: the signal it gives, or why it gives none. */
export type Ec2EventParse = { readonly signal: Ec2Signal } | { readonly ignored: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * An Auto Scaling termination: the group's own decision (scale-in, rebalancing, instance refresh,
 * a person's request), recorded `external` (exact) at the time it was made. A termination that
 * replaces an instance a health check found stopped is the group's answer to a stop, not a warning
 * of one: ignored, so a job's own `sudo shutdown` gains nothing from it.
 */
function parseAutoScalingEvent(event: Ec2Event, detail: Record<string, unknown>): Ec2EventParse {
  const detailType = event['detail-type'];
  const group = str(detail.AutoScalingGroupName) ?? 'unknown group';
  let eventTime = str(event.time);
  let reason: string;
  if (detailType === ASG_TERMINATE_ACTION) {
    reason = `Auto Scaling ${group}: terminate lifecycle action`;
  } else if (detailType === ASG_TERMINATE_SUCCESSFUL) {
    const cause = str(detail.Cause) ?? '';
    if (HEALTH_CHECK_CAUSE.test(cause))
      return { ignored: `${detailType} after a health check: ${cause.slice(0, 200)}` };
    // The activity's start is when the group decided, before the instance stopped.
    eventTime = str(detail.StartTime) ?? eventTime;
    reason = `Auto Scaling ${group}: ${cause.slice(0, 300) || 'terminated'}`;
  } else {
    return { ignored: `detail-type ${String(detailType)}` };
  }
  const instance = { field: 'detail.EC2InstanceId', id: str(detail.EC2InstanceId) };
  return complete(event, detailType, instance, eventTime, 'external', reason);
}

function complete(
  event: Ec2Event,
  detailType: string,
  instance: { readonly field: string; readonly id: string | undefined },
  eventTime: string | undefined,
  kind: SignalKind,
  reason: string,
): Ec2EventParse {
  const instanceId = instance.id;
  if (!instanceId || !INSTANCE_ID.test(instanceId))
    return { ignored: `${detailType} without a valid ${instance.field}` };
  if (!eventTime || Number.isNaN(Date.parse(eventTime))) return { ignored: `${detailType} without a valid time` };
  const eventId = str(event.id);
  if (!eventId) return { ignored: `${detailType} without an id` };
  const region = str(event.region) ?? '';
  const account = str(event.account) ?? '';
  return { signal: { instanceId, kind, eventTime, eventId, region, account, reason } };
}

/**
 * Reads an `aws.ec2` or `aws.autoscaling` event. One function may serve several rules (and a rule
 * may be edited by hand), so the source, detail-type and state are checked here rather than
 * trusted to the rule.
 */
export function parseEc2Event(event: Ec2Event): Ec2EventParse {
  if (typeof event !== 'object' || event === null) return { ignored: 'not an EventBridge event' };
  if (event.source === 'aws.autoscaling') {
    const d = typeof event.detail === 'object' && event.detail !== null ? event.detail : {};
    return parseAutoScalingEvent(event, d as Record<string, unknown>);
  }
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

  const instance = { field: 'detail.instance-id', id: str(detail['instance-id']) };
  return complete(event, detailType, instance, str(event.time), kind, reason);
}
