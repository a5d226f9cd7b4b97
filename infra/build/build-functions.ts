/**
 * Bundles each Lambda handler into dist/lambda/, with the settings NodejsFunction uses, so the
 * published construct deploys them as they are. Handlers that may run on the runtime's AWS SDK
 * get two bundles: with it bundled (`<entry>-sdk`, the default) and without it (`<entry>`, for
 * `bundleAwsSdk: false`). Each map keeps the project's own sources only (./own-source-map.ts).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { BUNDLE, HANDLERS, PREBUILT_DIR, PROJECT_ROOT, prebuiltName } from '../functions/handlers.js';
import { buildCli } from './build-cli.js';
import { ownSourceMap } from './own-source-map.js';

/** Handlers the construct always deploys with their SDK bundled (see infra/functions/ec2-signal.ts). */
const ALWAYS_WITH_SDK = new Set<string>([HANDLERS.ec2Signal.entry]);

async function main(): Promise<void> {
  // Run from the sources, PREBUILT_DIR is <root>/lambda/; the compiled construct looks in dist/lambda/.
  const outRoot = PREBUILT_DIR.replace(PROJECT_ROOT, `${PROJECT_ROOT}dist/`);
  rmSync(outRoot, { recursive: true, force: true });
  const jobs = Object.values(HANDLERS).flatMap(({ entry }) =>
    (ALWAYS_WITH_SDK.has(entry) ? [true] : [false, true]).map(async (withSdk) => {
      const outfile = `${outRoot}${prebuiltName(entry, withSdk)}/index.mjs`;
      await build({
        entryPoints: [`${PROJECT_ROOT}functions/${entry}.ts`],
        outfile,
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
      });
      writeFileSync(`${outfile}.map`, ownSourceMap(readFileSync(`${outfile}.map`, 'utf8')));
    }),
  );
  await Promise.all([...jobs, buildCli()]);
  // The last step of `npm run build`: test/support/build.ts compares sources against this stamp.
  writeFileSync(`${PROJECT_ROOT}dist/.build-stamp`, `${new Date().toISOString()}\n`);
  console.log(`bundled ${jobs.length} handlers into ${outRoot}, and the reprise command into dist/cli/`);
}

await main();
