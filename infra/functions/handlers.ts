import { fileURLToPath } from 'node:url';

/** The deployed handlers, where their sources and prebuilt bundles are, and how each is bundled. */

/** The repository root: entry files, the lock file and tsconfig live there. */
export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Where `npm run build` puts the bundled handlers, beside the compiled construct: `dist/lambda/`
 * from `dist/infra/`. Run from its TypeScript sources, the construct finds none and bundles.
 */
export const PREBUILT_DIR = fileURLToPath(new URL('../../lambda/', import.meta.url));

/** The directory of one prebuilt bundle: `<entry>` with the AWS SDK external, `<entry>-sdk` with it bundled. */
export const prebuiltName = (entry: string, bundleAwsSdk: boolean): string => (bundleAwsSdk ? `${entry}-sdk` : entry);

/** The esbuild settings of every bundle, shared by NodejsFunction and the build's own bundling. */
export const BUNDLE = {
  format: 'esm',
  platform: 'node',
  target: 'node22',
  mainFields: ['module', 'main'],
  /** The SDK the Lambda runtime provides (and its Smithy packages), when it is not bundled. */
  runtimeSdk: ['@aws-sdk/*', '@smithy/*'],
  // CommonJS dependencies inside an ESM bundle still call require() for Node built-ins.
  banner: "import { createRequire as reprise_cr } from 'node:module'; const require = reprise_cr(import.meta.url);",
} as const;

/** One handler file under `functions/` and the name it reports metrics and logs under. */
export interface HandlerSpec {
  /** File name under `functions/`, without extension. */
  readonly entry: string;
  /** Powertools' service name (`FUNCTION_PROCESS_ENV.serviceName`); also the `service` dimension of its metrics. */
  readonly serviceName: string;
}

export const HANDLERS = {
  intake: { entry: 'intake', serviceName: 'reprise-intake' },
  worker: { entry: 'worker', serviceName: 'reprise-worker' },
  ec2Signal: { entry: 'ec2-signal', serviceName: 'reprise-ec2-signal' },
  signalIntake: { entry: 'signal-intake', serviceName: 'reprise-signal-intake' },
  reconciler: { entry: 'reconciler', serviceName: 'reprise-reconciler' },
} as const satisfies Record<string, HandlerSpec>;
