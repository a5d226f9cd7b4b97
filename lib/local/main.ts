import { fromEnv, SETTINGS } from '../config/settings-schema.js';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError } from '../errors.js';
import { createLog } from '../obs/powertools.js';
import { adminTokenPath } from './admin-token.js';
import { checkConfiguration } from './preflight.js';
import { startRuntime } from './runtime.js';

const HELP = `reprise local runtime: the deployed handlers on one machine.

Usage: npm start -- [--port N] [--admin-port N] [--data-dir DIR] [--dotenv FILE] [--events FILE]

Serves POST /webhook, POST /signals and GET /healthz on PORT (the port to expose
to GitHub), with an embedded DynamoDB and FIFO queue and the worker polling it.
The operator routes for "reprise decisions" and "reprise replay" listen on
127.0.0.1:ADMIN_PORT (default PORT + 1) and need the token kept in
DIR/admin-token (.reprise/admin-token without --data-dir), created on first start. Configuration comes from the environment (a .env file
is read when present, or the one --dotenv names): APP_ID + PRIVATE_KEY (or PRIVATE_KEY_PATH) or GITHUB_TOKEN,
WEBHOOK_SECRET, GITHUB_API_URL, PORT. See README.md for every variable.
--events FILE (or EVENTS_FILE) appends every decision, re-run outcome and
stuck-queued job to FILE as one JSON line each (docs/operations.md, Events).`;

async function main(): Promise<void> {
  // Node reads --env-file itself, even after the script's name, and exits when the file is missing.
  const nodeOwn = process.argv.slice(2).find((a) => /^--env-file(-if-exists)?(=|$)/.test(a));
  if (nodeOwn) throw new ConfigError(`${nodeOwn.split('=')[0]} is Node's own option; use --dotenv FILE`);
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      'admin-port': { type: 'string' },
      'data-dir': { type: 'string' },
      dotenv: { type: 'string' },
      events: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const envFile = values.dotenv ?? '.env';
  const read = existsSync(envFile);
  if (read) process.loadEnvFile(envFile);
  else if (values.dotenv) throw new ConfigError(`--dotenv: ${envFile} does not exist`);
  checkConfiguration(process.env, { path: envFile, read });
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

  const port = values.port !== undefined ? SETTINGS.port.parse(values.port, '--port') : fromEnv(process.env, 'port');
  const adminPort =
    values['admin-port'] !== undefined && values['admin-port'] !== ''
      ? SETTINGS.adminPort.parse(values['admin-port'], '--admin-port')
      : fromEnv(process.env, 'adminPort');
  const log = createLog('reprise-local', fromEnv(process.env, 'logLevel'));
  // Every file the local runtime makes later (LevelDB's tables, the events file) is the operator's only.
  process.umask(0o077);
  const runtime = await startRuntime({
    env: process.env,
    log,
    port,
    host: fromEnv(process.env, 'host'),
    ...(values['data-dir'] && { dataDir: values['data-dir'] }),
    ...(adminPort !== undefined && { adminPort }),
    ...(values.events && { eventsFile: values.events }),
    adminTokenFile: adminTokenPath(values['data-dir']),
  });
  const stop = (): void => {
    log.info('shutting down');
    void runtime.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(`reprise: ${err instanceof ConfigError ? err.message : (err as Error).stack}`);
  process.exit(1);
});
