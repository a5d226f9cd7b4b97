/**
 * The operator routes (`GET /decisions`, `POST /replay`, `POST /ec2-events`): on 127.0.0.1 only, on a port of their
 * own, each behind the admin token. They never share the port a tunnel exposes to GitHub, and
 * still ask for the key: loopback alone does not keep out other local users or a browser page
 * aimed at localhost.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { Log } from '../obs/types.js';
import { type AdminDeps, adminRoutes } from './admin-routes.js';
import { adminTokenPath, loadOrCreateAdminToken, requireToken } from './admin-token.js';
import { type Routes, serveRoutes } from './http-server.js';

/** What the operator port serves, on which port, behind which token. */
export interface AdminServerOptions {
  readonly ledger: AdminDeps['ledger'];
  readonly replay: AdminDeps['replay'];
  readonly redrive?: AdminDeps['redrive'];
  readonly ec2Events?: AdminDeps['ec2Events'];
  readonly log: Log;
  readonly port: number;
  /** The key the routes ask for; read from (or created in) the token file when absent. */
  readonly token?: string;
  /** Where the token is kept; `<dataDir>/admin-token` when absent; with neither, it is held in memory. */
  readonly tokenFile?: string;
  readonly dataDir?: string;
}

/** The operator port, listening: where it is and the token it asks for. */
export interface AdminServer {
  readonly server: Server;
  readonly url: string;
  readonly token: string;
  /** Where the token is kept, when it is kept on disk. */
  readonly tokenFile?: string;
}

/** Serves the operator routes on 127.0.0.1, each behind the admin token (read, created or given). */
export async function serveAdmin(opts: AdminServerOptions): Promise<AdminServer> {
  const tokenFile = opts.tokenFile ?? (opts.dataDir ? adminTokenPath(opts.dataDir) : undefined);
  const token =
    opts.token ?? (tokenFile ? await loadOrCreateAdminToken(tokenFile) : randomBytes(32).toString('base64url'));
  const routes: Routes = Object.fromEntries(
    Object.entries(
      adminRoutes({
        ledger: opts.ledger,
        replay: opts.replay,
        log: opts.log,
        ...(opts.redrive && { redrive: opts.redrive }),
        ...(opts.ec2Events && { ec2Events: opts.ec2Events }),
      }),
    ).map(([route, handler]) => [route, requireToken(token, handler)]),
  );
  const { server, url } = await serveRoutes(routes, opts.port, '127.0.0.1', (err) =>
    opts.log.error('admin request failed', { error: (err as Error).message }),
  );
  return { server, url, token, ...(tokenFile && { tokenFile }) };
}
