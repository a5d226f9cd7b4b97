import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A CA of the simulated cluster's own and a server certificate it signed for 127.0.0.1 and localhost. */
export interface ClusterCerts {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
  /** A directory holding `ca.crt`, for a `caFile` setting; removed by `dispose`. */
  readonly dir: string;
  readonly caFile: string;
  dispose(): void;
}

/**
 * Made with `openssl` at test time, as an EKS cluster has a CA of its own: a client that trusted
 * the system's roots, or none, would fail here.
 */
export function makeClusterCerts(): ClusterCerts {
  const dir = mkdtempSync(join(tmpdir(), 'reprise-kube-'));
  const f = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=kubernetes',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.crt'),
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=kube-apiserver',
    '-keyout',
    f('server.key'),
    '-out',
    f('server.csr'),
  );
  writeFileSync(
    f('server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.crt'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    f('server.ext'),
    '-out',
    f('server.crt'),
  );
  return {
    caPem: readFileSync(f('ca.crt'), 'utf8'),
    certPem: readFileSync(f('server.crt'), 'utf8'),
    keyPem: readFileSync(f('server.key'), 'utf8'),
    dir,
    caFile: f('ca.crt'),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
