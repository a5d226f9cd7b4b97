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
