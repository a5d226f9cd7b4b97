/**
 * A consuming CDK app outside the repository, installed offline from the packed tarball: its
 * package-lock.json pins the tarball and, for every other package, the exact version, URL and
 * integrity this repository's lock file records, so `npm ci --offline` takes them from the npm cache
 * that installing this repository filled. No registry metadata is needed, and none is fetched.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface LockEntry {
  readonly version?: string;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly [key: string]: unknown;
}

export interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly license: string;
  readonly bin: Record<string, string>;
  readonly engines: Record<string, string>;
  readonly dependencies: Record<string, string>;
  readonly peerDependencies: Record<string, string>;
}

/** Where Node would find `name` from the package at `from`, in a lock file's flat `packages` map. */
function resolveIn(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const i = base.lastIndexOf('/node_modules/');
    base = i >= 0 ? base.slice(0, i) : '';
  }
}

/** The lock file entries the package's dependencies and peer dependencies pull in, and nothing else. */
export function closure(root: string, manifest: Manifest): Record<string, LockEntry> {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const all = lock.packages;
  const seen = new Set<string>();
  const stack = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)].map((n) =>
    resolveIn(all, '', n),
  );
  while (stack.length > 0) {
    const at = stack.pop();
    if (at === undefined || seen.has(at)) continue;
    seen.add(at);
    const e = all[at] as LockEntry;
    for (const dep of Object.keys({ ...e.dependencies, ...e.optionalDependencies, ...e.peerDependencies })) {
      stack.push(resolveIn(all, at, dep));
    }
  }
  const out: Record<string, LockEntry> = {};
  for (const at of [...seen].sort()) {
    // In this repository some of them are development packages; in the app they are its own.
    const { dev: _dev, peer: _peer, devOptional: _devOptional, ...entry } = all[at] as LockEntry;
    out[at] = entry;
  }
  return out;
}

/**
 * Writes package.json and package-lock.json of an app that depends on the tarball (beside them) and
 * on the package's peer dependencies, then installs it with `npm ci --offline`.
 */
export function installConsumer(root: string, dir: string, tarball: string): void {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
  const dependencies = { [manifest.name]: `file:${tarball}`, ...manifest.peerDependencies };
  const app = { name: 'consumer', version: '1.0.0', private: true, type: 'module', dependencies };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(app, null, 2)}\n`);
  const packages = {
    '': { name: app.name, version: app.version, dependencies },
    ...closure(root, manifest),
    [`node_modules/${manifest.name}`]: {
      version: manifest.version,
      resolved: `file:${tarball}`,
      license: manifest.license,
      dependencies: manifest.dependencies,
      peerDependencies: manifest.peerDependencies,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  };
  const lock = { name: app.name, version: app.version, lockfileVersion: 3, requires: true, packages };
  writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  execFileSync('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
}
