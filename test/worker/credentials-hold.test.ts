/**
 * Issue 23 point 4: a bad App secret is an alarm, not a slow drain. The first invocation that
 * cannot read usable credentials counts AppSecretInvalid and logs the fix; its messages are
 * deferred, not dead-lettered, for up to MAX_WAIT_SECONDS; a fixed secret is read afresh.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { parseAppSecret, rebuiltOnRotation } from '../../lib/config/secrets.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { credentialsHold, FIRST_HOLD_SECONDS, holdSeconds } from '../../lib/worker/credentials-hold.js';
import { MemoryLog } from '../support/memory-log.js';
import { testPrivateKey } from '../support/harness.js';

const T0 = Date.parse('2026-12-03T00:00:00Z');
const SIX_HOURS = 6 * 3600;
const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:RepriseGitHubApp-abc123';

const record = (id: string, received: number, firstReceive: number): SQSRecord =>
  ({
    messageId: id,
    receiptHandle: `rh-${id}`,
    body: '{}',
    attributes: {
      ApproximateReceiveCount: String(received),
      ApproximateFirstReceiveTimestamp: String(firstReceive),
      SentTimestamp: String(firstReceive),
      SenderId: 'x',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:q.fifo',
    awsRegion: 'eu-west-1',
  }) as SQSRecord;

describe('a bad App secret holds messages in the queue', () => {
  it('the hold grows from a minute and spreads MAX_WAIT_SECONDS over the receives left before the redrive', () => {
    const opts = { maxWaitSeconds: SIX_HOURS, maxReceiveCount: 5 };
    let waited = 0;
    const holds: number[] = [];
    for (let received = 1; received <= 5; received++) {
      const s = holdSeconds(received, waited, opts);
      if (s === undefined) break;
      holds.push(s);
      waited += s;
    }
    expect(holds[0]).toBe(FIRST_HOLD_SECONDS);
    expect(holds).toEqual([60, 360, 2160, SIX_HOURS - 2580]);
    // Held the whole wait, on the receives before the last: never dead-lettered sooner.
    expect(waited).toBe(SIX_HOURS);
    expect(holdSeconds(5, waited, opts)).toBeUndefined();
  });

  it('past MAX_WAIT_SECONDS a message is held no longer, and goes to the dead-letter queue', () => {
    expect(holdSeconds(2, SIX_HOURS + 1, { maxWaitSeconds: SIX_HOURS, maxReceiveCount: 5 })).toBeUndefined();
  });

  it('the first invocation counts AppSecretInvalid and logs the fix; every message is deferred, none acknowledged', async () => {
    const log = new MemoryLog();
    const metrics = new MemoryMetrics();
    const deferred: [string, number][] = [];
    let now = T0 + 1000;
    const hold = credentialsHold({
      log,
      metrics,
      secretId: ARN,
      maxWaitSeconds: SIX_HOURS,
      maxReceiveCount: 5,
      now: () => now,
      defer: async (r, s) => {
        deferred.push([r.messageId, s]);
      },
    });
    const event: SQSEvent = { Records: [record('a', 1, T0), record('b', 2, T0 - 60_000)] };
    const res = await hold.hold(event, new Error('GitHub App secret: expected JSON {"appId": "…", "privateKey": "…"}'));
    expect(res.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['a', 'b']);
    expect(deferred).toEqual([
      ['a', 60],
      ['b', 360],
    ]);
    expect(metrics.get('AppSecretInvalid')).toBe(1);
    const [line] = log.named('GitHub App secret cannot be used: runs wait in the queue until it is fixed');
    expect(line).toMatchObject({ level: 'error', secret: ARN });
    expect(String(line?.fix)).toContain(`aws secretsmanager put-secret-value --secret-id ${ARN}`);

    // Still broken: counted again (the alarm stays on), the fix is not logged again.
    now += 60_000;
    await hold.hold({ Records: [record('c', 1, now)] }, new Error('still broken'));
    expect(metrics.get('AppSecretInvalid')).toBe(2);
    expect(log.named('GitHub App secret cannot be used: runs wait in the queue until it is fixed')).toHaveLength(1);

    // Fixed, then broken again: a new fault is logged with its fix again.
    hold.recovered();
    expect(log.named('GitHub App secret is usable again')).toHaveLength(1);
    await hold.hold({ Records: [record('d', 1, now)] }, new Error('broken again'));
    expect(log.named('GitHub App secret cannot be used: runs wait in the queue until it is fixed')).toHaveLength(2);
  });

  it('a message past MAX_WAIT_SECONDS is not deferred: it is named in an error line with the redrive to do', async () => {
    const log = new MemoryLog();
    const deferred: string[] = [];
    const hold = credentialsHold({
      log,
      metrics: new MemoryMetrics(),
      secretId: ARN,
      maxWaitSeconds: 600,
      maxReceiveCount: 5,
      now: () => T0 + 601_000,
      defer: async (r) => {
        deferred.push(r.messageId);
      },
    });
    const res = await hold.hold({ Records: [record('late', 3, T0)] }, new Error('missing'));
    expect(res.batchItemFailures).toHaveLength(1);
    expect(deferred).toEqual([]);
    expect(
      log.named('message held for the App secret past MAX_WAIT_SECONDS; it goes to the dead-letter queue')[0],
    ).toMatchObject({
      message_id: 'late',
    });
  });

  it('after a read or parse that failed, the next read skips the cache, so a fixed secret is used at once', async () => {
    let stored = 'placeholder';
    const fresh: boolean[] = [];
    const current = rebuiltOnRotation(
      async (f) => {
        fresh.push(f);
        return stored;
      },
      (secret) => parseAppSecret(secret, 'GitHub App secret'),
    );
    await expect(current()).rejects.toThrow(/expected JSON/);
    stored = JSON.stringify({ appId: '1234567', privateKey: testPrivateKey() });
    await expect(current()).resolves.toMatchObject({ kind: 'app', appId: '1234567' });
    await current();
    expect(fresh).toEqual([false, true, false]);
  });
});
