import type { RepriseEvent } from './types.js';

/** Every event's source. */
export const EVENT_SOURCE = 'reprise';

/** One EventBridge detail-type per kind of event. */
export const DETAIL_TYPES: Record<RepriseEvent['kind'], string> = {
  decision: 'Reprise Decision',
  rerun_outcome: 'Reprise Re-run Outcome',
  stuck_queued: 'Reprise Stuck Queued Job',
};

/** The envelope an EventBridge rule matches on, as the events file writes each line. */
export interface EventEnvelope {
  readonly source: typeof EVENT_SOURCE;
  readonly 'detail-type': string;
  readonly time: string;
  readonly detail: RepriseEvent;
}

/** An event in its EventBridge envelope, as a line of the local events file. */
export const envelopeOf = (event: RepriseEvent): EventEnvelope => ({
  source: EVENT_SOURCE,
  'detail-type': DETAIL_TYPES[event.kind],
  time: event.time,
  detail: event,
});
