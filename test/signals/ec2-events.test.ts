import { describe, expect, it } from 'vitest';
import { type Ec2Event, parseEc2Event } from '../../lib/signals/ec2-events.js';
import {
  ACCOUNT,
  asgTerminateAction,
  asgTerminateSuccessful,
  INSTANCE_ID,
  spotInterruptionWarning,
  stateChange,
} from './fixtures.js';

describe('parseEc2Event', () => {
  const base = spotInterruptionWarning();
  it.each<[string, Ec2Event, string]>([
    ['another source', { ...base, source: 'aws.ecs' }, 'source aws.ecs'],
    [
      'an Auto Scaling launch',
      { ...asgTerminateAction(), 'detail-type': 'EC2 Instance Launch Successful' },
      'detail-type',
    ],
    [
      'an Auto Scaling termination without an instance id',
      { ...asgTerminateAction(), detail: { AutoScalingGroupName: 'my-asg' } },
      'without a valid detail.EC2InstanceId',
    ],
    ['no instance id', { ...base, detail: { 'instance-action': 'terminate' } }, 'without a valid detail.instance-id'],
    ['a bad instance id', { ...base, detail: { 'instance-id': 'node-1' } }, 'without a valid detail.instance-id'],
    ['a bad time', { ...base, time: 'soon' }, 'without a valid time'],
    ['no id', { ...base, id: '' }, 'without an id'],
    ['a state-change without state', { ...stateChange('x'), detail: { 'instance-id': INSTANCE_ID } }, 'state missing'],
  ])('ignores an event with %s', (_name, event, reason) => {
    const parsed = parseEc2Event(event);
    expect('ignored' in parsed && parsed.ignored).toContain(reason);
  });

  it("an Auto Scaling termination lifecycle action is the group's decision: external (exact), at the event's time", () => {
    expect(parseEc2Event(asgTerminateAction())).toEqual({
      signal: {
        instanceId: INSTANCE_ID,
        kind: 'external',
        eventTime: '2026-10-02T16:14:30Z',
        eventId: '12345678-1234-1234-1234-123456789012',
        region: 'us-west-2',
        account: ACCOUNT,
        reason: 'Auto Scaling my-asg: terminate lifecycle action',
      },
    });
  });

  it('a successful Auto Scaling termination counts from when the group decided (the activity’s StartTime)', () => {
    const parsed = parseEc2Event(asgTerminateSuccessful());
    expect(parsed).toMatchObject({
      signal: {
        kind: 'external',
        eventTime: '2026-10-02T16:14:25.000Z',
        reason: expect.stringMatching(/^Auto Scaling my-asg: At /),
      },
    });
  });

  it.each([
    'At 2026-10-02T16:15:40Z an instance was taken out of service in response to an EC2 health check indicating it has been terminated or stopped.',
    'At 2026-10-02T16:15:40Z an instance was taken out of service in response to an ELB system health check failure.',
  ])(
    'an Auto Scaling replacement after a health check follows the stop, and is no warning of it: ignored (%s)',
    (cause) => {
      const parsed = parseEc2Event(asgTerminateSuccessful(cause, '2026-10-02T16:15:40.000Z'));
      expect('ignored' in parsed && parsed.ignored).toMatch(/after a health check/);
    },
  );

  it('reads a spot warning whatever the instance action', () => {
    const parsed = parseEc2Event({ ...base, detail: { 'instance-id': INSTANCE_ID, 'instance-action': 'stop' } });
    expect(parsed).toEqual({
      signal: {
        instanceId: INSTANCE_ID,
        kind: 'spot-interruption',
        eventTime: base.time,
        eventId: base.id,
        region: 'us-east-2',
        account: ACCOUNT,
        reason: 'instance-action stop',
      },
    });
  });
});
