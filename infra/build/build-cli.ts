/**
 * Bundles the `reprise` command into one file, dist/cli/reprise.mjs, with every library it uses
 * (the AWS SDK clients, Octokit, the YAML parser): the package ships it so that installing the
 * construct does not install the command's runtime, and the command still works from the package.
 */
import { build } from 'esbuild';
import { BUNDLE, PROJECT_ROOT } from '../functions/handlers.js';

/** Where lib/cli/bin.mjs imports the command from, in a checkout and in the package alike. */
export const CLI_BUNDLE = `${PROJECT_ROOT}dist/cli/reprise.mjs`;

export async function buildCli(): Promise<void> {
  await build({
    entryPoints: [`${PROJECT_ROOT}lib/cli/main.ts`],
    outfile: CLI_BUNDLE,
    bundle: true,
    minify: true,
    format: BUNDLE.format,
    platform: BUNDLE.platform,
    // The command runs on the operator's Node, not Lambda's: the oldest line the repository's tooling runs on.
    target: 'node20',
    mainFields: [...BUNDLE.mainFields],
    banner: { js: BUNDLE.banner },
    legalComments: 'linked',
    logLevel: 'warning',
  });
}
