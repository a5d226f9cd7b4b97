/**
 * Which `.env` the CLI reads. A `.env` decides where the App's credentials go (`GITHUB_API_URL`),
 * so the one in whatever directory the command runs in is not trusted: a checkout of someone
 * else's repository can hold one. The CLI reads the file `--dotenv FILE` names, else the `.env`
 * of reprise's own checkout when it runs there, else none.
 *
 * "reprise's own checkout" is a directory: the real path of the directory holding the package this
 * command runs from (the nearest `package.json` above the running module, whose own path Node
 * has already resolved). The `.env` beside the code being run is as trusted as that code. A
 * directory is never recognised by its `package.json`: a clone can commit a symlink to the real
 * package's file beside a `.env` of its own, and one that merely says `"name": "reprise"` is
 * nothing either. A link to the checkout's directory is the checkout.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { CliError, UsageError } from './io.js';

const real = (path: string): string | undefined => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

/** The real directory of the package this module belongs to: the nearest one above it with a `package.json`. */
export function ownPackageDir(): string | undefined {
  let dir = real(dirname(fileURLToPath(import.meta.url)));
  while (dir !== undefined) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
  return undefined;
}

/** True when `cwd` is, by its real path, the directory of the reprise package this command runs from. */
export function isOwnCheckout(cwd: string, packageDir: string | undefined = ownPackageDir()): boolean {
  const own = packageDir === undefined ? undefined : real(packageDir);
  return own !== undefined && real(cwd) === own;
}

/** `--dotenv FILE` (or `--dotenv=FILE`) taken out of a command's arguments. */
export function takeDotenv(argv: readonly string[]): { readonly args: string[]; readonly file?: string } {
  const args: string[] = [];
  let file: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      args.push(...argv.slice(i));
      break;
    }
    if (a === '--dotenv' || a.startsWith('--dotenv=')) {
      const value = a === '--dotenv' ? argv[++i] : a.slice('--dotenv='.length);
      if (!value || value.startsWith('-'))
        throw new UsageError('--dotenv: expected the file to read, e.g. --dotenv .env');
      file = value;
      continue;
    }
    args.push(a);
  }
  return file === undefined ? { args } : { args, file };
}

/** The variables of a `.env` file; a file named by `--dotenv` must exist. */
export function readDotenv(file: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(
      `--dotenv: cannot read ${resolve(file)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  return parseEnv(text) as Record<string, string>;
}

/** The project checkout's `.env` when `cwd` is that checkout and it has one, else undefined. */
export function checkoutDotenv(cwd: string, packageDir: string | undefined = ownPackageDir()): string | undefined {
  const file = join(cwd, '.env');
  return isOwnCheckout(cwd, packageDir) && existsSync(file) ? file : undefined;
}
