import { keys, TTL, ttlFrom } from './keys.js';
import type { Table } from './table.js';

/** How the EC2 signal's last pod listing on one EKS cluster went: what `reprise status` reports. */
export interface EksListing {
  readonly cluster: string;
  /** When it was asked (epoch ms). */
  readonly at: number;
  readonly ok: boolean;
  /** Why it failed: the API's status and reason, a timeout, a refused DescribeCluster. */
  readonly cause?: string;
  readonly status?: number;
  /** The instance whose interruption it was asked for. */
  readonly instanceId?: string;
}

/** Each EKS cluster's last pod listing, so `reprise status` can say when a cluster was last read. */
export interface EksListings {
  /** Keeps the cluster's latest outcome: a failure, or none once it answered. */
  record(
    cluster: string,
    failure: { readonly cause: string; readonly status?: number; readonly instanceId: string } | undefined,
  ): Promise<void>;
  /** Every cluster's latest outcome. */
  list(): Promise<EksListing[]>;
}

/** EKS listings on the table, one item per cluster, overwritten by each listing. */
export class TableEksListings implements EksListings {
  constructor(
    private readonly table: Table,
    private readonly now: () => number,
  ) {}

  async record(
    cluster: string,
    failure: { readonly cause: string; readonly status?: number; readonly instanceId: string } | undefined,
  ): Promise<void> {
    const at = this.now();
    await this.table.put({
      ...keys.eksListing(cluster),
      cluster,
      at,
      ok: failure === undefined,
      ...(failure && { cause: failure.cause, instanceId: failure.instanceId }),
      ...(failure?.status !== undefined && { status: failure.status }),
      ttl: ttlFrom(at, TTL.eksListing),
    });
  }

  async list(): Promise<EksListing[]> {
    const items = await this.table.query<EksListing & Record<string, unknown>>(keys.eksListings, true);
    return items.map((i) => ({
      cluster: i.cluster,
      at: i.at,
      ok: i.ok,
      ...(i.cause !== undefined && { cause: i.cause }),
      ...(i.status !== undefined && { status: i.status }),
      ...(i.instanceId !== undefined && { instanceId: i.instanceId }),
    }));
  }
}
