/** An ISO 8601 time with a zone, as agents send it: `2026-10-02T16:15:05Z`, `…:05.25+02:00`. */
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|([+-])(\d{2}):(\d{2}))$/;

const daysIn = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * The epoch ms of an ISO 8601 time with a zone, or why it is none. Every field is checked
 * against the calendar: `Date.parse` reads `2026-02-30` as 2 March, which is another instant.
 */
export function parseInstant(text: string): { readonly ms: number } | { readonly error: string } {
  const m = ISO_TIME.exec(text);
  if (!m) return { error: 'expected an ISO 8601 time with a zone, e.g. 2026-10-02T16:15:05Z' };
  const [year, month, day, hour, minute, second = 0, , zoneHours = 0, zoneMinutes = 0] = m
    .slice(1)
    .map((v) => (v === undefined || v === '+' || v === '-' ? undefined : Number(v)));
  if (month! < 1 || month! > 12) return { error: `${text}: there is no month ${month}` };
  const days = daysIn(year!, month!);
  if (day! < 1 || day! > days) return { error: `${text}: month ${month} of ${year} has ${days} days` };
  if (hour! > 23 || minute! > 59 || second > 59) return { error: `${text}: not a time of day` };
  if (zoneHours > 23 || zoneMinutes > 59) return { error: `${text}: not a time zone offset` };
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? { error: `${text}: not a time` } : { ms };
}
