import { type DeliveryGap, type GapScope, type LoggedDelivery, readPage } from '../decide/delivery-gap.js';

/** One attempt of a webhook delivery, as `GET /app/hook/deliveries` lists it. */
export interface HookDelivery {
  readonly id: number;
  readonly guid: string;
  readonly delivered_at: string;
  readonly redelivery: boolean;
  readonly status_code: number;
  readonly event: string;
  readonly action: string | null;
}

/** GitHub records a delivery that timed out with status 0. */
export const deliverySucceeded = (d: Pick<HookDelivery, 'status_code'>): boolean =>
  d.status_code > 0 && d.status_code < 400;

/** The `cursor` of a `rel="next"` link, if any. */
export function nextCursor(link: string | undefined): string | undefined {
  const next = link?.split(',').find((part) => /rel="next"/.test(part));
  const url = next ? /<([^>]+)>/.exec(next)?.[1] : undefined;
  return url ? (new URL(url).searchParams.get('cursor') ?? undefined) : undefined;
}

/** The App's client, as far as reading its webhook's delivery log goes. */
export interface DeliveryLogClient {
  request(
    route: 'GET /app/hook/deliveries',
    params: { per_page: number; cursor?: string },
  ): Promise<{ data: unknown; headers: { link?: string } }>;
}

/** How far one read of the log may go: pages of `perPage`, newest first. */
export const GAP_READ = { maxPages: 5, perPage: 100 } as const;

/**
 * What the App's delivery log says of `scope` since its start: read newest first, page by page,
 * only back to the first delivery older than the start. An App request (a JWT), not counted
 * against the installation's rate limit. A log too long to reach the start in `maxPages`, or a
 * read that fails, is `unread`: the caller lists instead.
 */
export async function readDeliveryGap(
  app: DeliveryLogClient,
  scope: GapScope,
  limits: { maxPages: number; perPage: number } = GAP_READ,
): Promise<DeliveryGap> {
  const delivered = new Set<string>();
  let cursor: string | undefined;
  let appRequests = 0;
  try {
    for (let page = 0; page < limits.maxPages; page++) {
      appRequests++;
      const res = await app.request('GET /app/hook/deliveries', {
        per_page: limits.perPage,
        ...(cursor !== undefined && { cursor }),
      });
      const read = readPage(res.data as LoggedDelivery[], scope, delivered);
      if (read.missed) {
        const d = read.missed;
        return { kind: 'missed', guid: d.guid, statusCode: d.status_code, deliveredAt: d.delivered_at, appRequests };
      }
      cursor = nextCursor(res.headers.link);
      if (read.reachedStart || cursor === undefined) return { kind: 'none', appRequests };
    }
    return {
      kind: 'unread',
      reason: `the log goes past ${limits.maxPages} pages since the run started`,
      appRequests,
    };
  } catch (err) {
    return { kind: 'unread', reason: (err as Error).message, appRequests };
  }
}
