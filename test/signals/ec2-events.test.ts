import { describe, expect, it } from 'vitest';
import { type Ec2Event, parseEc2Event } from '../../lib/signals/ec2-events.js';
import { ACCOUNT, INSTANCE_ID, spotInterruptionWarning, stateChange } from './fixtures.js';

describe('parseEc2Event', () => {
  const base = spotInterruptionWarning();
  it.each<[string, Ec2Event, string]>([
    ['another source', { ...base, source: 'aws.autoscaling' }, 'source aws.autoscaling'],
    ['no instance id', { ...base, detail: { 'instance-action': 'terminate' } }, 'without a valid detail.instance-id'],
    ['a bad instance id', { ...base, detail: { 'instance-id': 'node-1' } }, 'without a valid detail.instance-id'],
    ['a bad time', { ...base, time: 'soon' }, 'without a valid time'],
    ['no id', { ...base, id: '' }, 'without an id'],
    ['a state-change without state', { ...stateChange('x'), detail: { 'instance-id': INSTANCE_ID } }, 'state missing'],
  ])('ignores an event with %s', (_name, event, reason) => {
    const parsed = parseEc2Event(event);
    expect('ignored' in parsed && parsed.ignored).toContain(reason);
  });

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
