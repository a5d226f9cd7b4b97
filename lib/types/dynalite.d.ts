declare module 'dynalite' {
  import type { Server } from 'node:http';
  interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }
  /** An in-process DynamoDB server (the local runtime's and the tests' table). */
  export default function dynalite(options?: DynaliteOptions): Server;
}
