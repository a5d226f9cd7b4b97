import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { DETAIL_TYPES, envelopeOf, EVENT_SOURCE } from '../../lib/events/kinds.js';
import type { RepriseEvent } from '../../lib/events/types.js';

const schema = JSON.parse(await readFile(new URL('../../docs/events.schema.json', import.meta.url), 'utf8')) as object;

describe('event kinds and their envelope', () => {
  it('each kind has its own detail-type, all under source reprise', () => {
    expect(EVENT_SOURCE).toBe('reprise');
    const types = Object.values(DETAIL_TYPES);
    expect(new Set(types).size).toBe(types.length);
    for (const type of types) expect(type).toMatch(/^Reprise /);
  });

  it('every kind the schema documents has a detail-type', () => {
    const documented = [...JSON.stringify(schema).matchAll(/"kind":\{"const":"(\w+)"\}/g)].map((m) => m[1]);
    expect(documented.length).toBeGreaterThan(0);
    expect(new Set(documented)).toEqual(new Set(Object.keys(DETAIL_TYPES)));
  });

  it('envelopeOf wraps the event unchanged, with its kind’s detail-type and its own time', () => {
    const event: RepriseEvent = {
      version: 1,
      kind: 'stuck_queued',
      time: '2026-12-03T07:00:00.000Z',
      installation_id: 1,
      repository: 'acme/events',
      run_id: 7,
      run_attempt: 1,
      job_id: 70,
      job_name: 'deploy',
      workflow_name: null,
      labels: ['self-hosted'],
      queued_at: '2026-12-03T06:40:00.000Z',
      waited_seconds: 1200,
      stuck_after_minutes: 15,
      reprise_rerun: false,
      reason: 'no runner',
    };
    expect(envelopeOf(event)).toEqual({
      source: 'reprise',
      'detail-type': 'Reprise Stuck Queued Job',
      time: '2026-12-03T07:00:00.000Z',
      detail: event,
    });
  });
});
