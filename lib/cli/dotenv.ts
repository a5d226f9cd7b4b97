/**
 * Which `.env` the CLI reads. A `.env` decides where the App's credentials go (`GITHUB_API_URL`),
 * so the one in whatever directory the command runs in is not trusted: a checkout of someone
 * else's repository can hold one. The CLI reads the file `--dotenv FILE` names, else the `.env`
 * of reprise's own checkout when it runs there, else none.
 *
 * "reprise's own checkout" is the directory whose `package.json` is the very file of the package
 * this command runs from (links followed): the `.env` beside the code being run is as trusted as
 * that code. A directory whose `package.json` merely says `"name": "reprise"` is not.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { CliError, UsageError } from './io.js';

/** The `package.json` of the package this module belongs to: the nearest one above it. */
function ownPackageJson(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

const real = (path: string): string | undefined => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

/** True when `cwd` is the root of the reprise package this command runs from. */
export function isOwnCheckout(cwd: string): boolean {
  const own = ownPackageJson();
  const here = real(join(cwd, 'package.json'));
  return own !== undefined && here !== undefined && real(own) === here;
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
export function checkoutDotenv(cwd: string): string | undefined {
  const file = join(cwd, '.env');
  return isOwnCheckout(cwd) && existsSync(file) ? file : undefined;
}
