/**
 * Bundles each Lambda handler into dist/lambda/, with the settings NodejsFunction uses, so the
 * published construct deploys them as they are. Handlers that may run on the runtime's AWS SDK
 * get two bundles: without it (`<entry>`) and with it (`<entry>-sdk`, for `bundleAwsSdk`).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { BUNDLE, HANDLERS, PREBUILT_DIR, PROJECT_ROOT, prebuiltName } from '../functions.js';
import { buildCli } from './build-cli.js';

/** Handlers the construct always deploys with their SDK bundled (see infra/reprise.ts). */
const ALWAYS_WITH_SDK = new Set<string>([HANDLERS.ec2Signal.entry]);

async function main(): Promise<void> {
  // Run from the sources, PREBUILT_DIR is <root>/lambda/; the compiled construct looks in dist/lambda/.
  const outRoot = PREBUILT_DIR.replace(PROJECT_ROOT, `${PROJECT_ROOT}dist/`);
  rmSync(outRoot, { recursive: true, force: true });
  const jobs = Object.values(HANDLERS).flatMap(({ entry }) =>
    (ALWAYS_WITH_SDK.has(entry) ? [true] : [false, true]).map((withSdk) =>
      build({
        entryPoints: [`${PROJECT_ROOT}functions/${entry}.ts`],
        outfile: `${outRoot}${prebuiltName(entry, withSdk)}/index.mjs`,
        bundle: true,
        minify: true,
        sourcemap: true,
        sourcesContent: false,
        format: BUNDLE.format,
        platform: BUNDLE.platform,
        target: BUNDLE.target,
        mainFields: [...BUNDLE.mainFields],
        banner: { js: BUNDLE.banner },
        external: withSdk ? [] : [...BUNDLE.runtimeSdk],
        logLevel: 'warning',
      }),
    ),
  );
  await Promise.all([...jobs, buildCli()]);
  // The last step of `npm run build`: test/support/build.ts compares sources against this stamp.
  writeFileSync(`${PROJECT_ROOT}dist/.build-stamp`, `${new Date().toISOString()}\n`);
  console.log(`bundled ${jobs.length} handlers into ${outRoot}, and the reprise command into dist/cli/`);
}

await main();
