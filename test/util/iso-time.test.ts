import { describe, expect, it } from 'vitest';
import { parseInstant } from '../../lib/util/iso-time.js';

describe('parseInstant', () => {
  it.each([
    ['2026-10-02T16:15:05Z', Date.UTC(2026, 9, 2, 16, 15, 5)],
    ['2026-10-02T16:15Z', Date.UTC(2026, 9, 2, 16, 15)],
    ['2026-10-02T16:15:05.25+02:00', Date.UTC(2026, 9, 2, 14, 15, 5, 250)],
    ['2026-10-02T00:30:00-05:30', Date.UTC(2026, 9, 2, 6, 0)],
    ['2028-02-29T12:00:00Z', Date.UTC(2028, 1, 29, 12)],
    ['2026-12-31T23:59:59Z', Date.UTC(2026, 11, 31, 23, 59, 59)],
  ])('%s is the instant it names', (text, ms) => {
    expect(parseInstant(text)).toEqual({ ms });
  });

  it.each([
    ['2026-10-02T16:15:05', /expected an ISO 8601 time with a zone/],
    ['2026-10-02', /expected an ISO 8601 time with a zone/],
    ['yesterday', /expected an ISO 8601 time with a zone/],
    ['2026-13-01T00:00:00Z', /there is no month 13/],
    ['2026-00-01T00:00:00Z', /there is no month 0/],
    ['2026-02-30T00:00:00Z', /month 2 of 2026 has 28 days/],
    ['2027-02-29T00:00:00Z', /month 2 of 2027 has 28 days/],
    ['2026-04-31T00:00:00Z', /month 4 of 2026 has 30 days/],
    ['2026-10-00T00:00:00Z', /has 31 days/],
    ['2026-10-02T24:00:00Z', /not a time of day/],
    ['2026-10-02T12:60:00Z', /not a time of day/],
    ['2026-10-02T12:00:60Z', /not a time of day/],
    ['2026-10-02T12:00:00+24:00', /not a time zone offset/],
    ['2026-10-02T12:00:00+01:60', /not a time zone offset/],
  ])('%s is refused with a reason, never read as another instant', (text, why) => {
    const answer = parseInstant(text);
    expect(answer).not.toHaveProperty('ms');
    expect((answer as { error: string }).error).toMatch(why);
  });
});
