// A real Postgres of its own for the tests and the benchmarks: a cluster in a temp dir, on
// 127.0.0.1 and a free port, with a password (the URL is a secret the tests look for).
// Debian's binaries (/usr/lib/postgresql/<version>/bin, or initdb on PATH); as root, run as the
// postgres user, since Postgres refuses to run as root. Types: postgres-cluster.d.mts.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** The directory of Postgres's server binaries, or undefined when none is installed. */
export function postgresBin() {
  const onPath = (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => dir !== '')
    .map((dir) => path.join(dir, 'initdb'))
    .find((file) => fs.existsSync(file));
  if (onPath !== undefined) return path.dirname(fs.realpathSync(onPath));
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions[0] === undefined ? undefined : path.join(root, versions[0], 'bin');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;

/** Runs a Postgres binary, as the postgres user when the tests run as root. */
function runBinary(bin, name, args) {
  const command = path.join(bin, name);
  const [file, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', command, ...args]]
    : [command, args];
  execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
}

let databases = 0;

/** Starts a cluster of its own; `close()` it when done. */
export async function startPostgres() {
  const bin = postgresBin();
  if (bin === undefined)
    throw new Error('no Postgres server binaries (apt-get install postgresql): the tests need one');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-pg-'));
  const password = `pw-${Math.random().toString(36).slice(2)}-secret`;
  fs.writeFileSync(path.join(dir, 'pwfile'), `${password}\n`);
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    fs.chownSync(dir, uid, gid);
    fs.chownSync(path.join(dir, 'pwfile'), uid, gid);
  }
  const data = path.join(dir, 'data');
  runBinary(bin, 'initdb', [
    '-D',
    data,
    '-U',
    'ralph',
    '--auth=scram-sha-256',
    `--pwfile=${path.join(dir, 'pwfile')}`,
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ');
  const start = () =>
    runBinary(bin, 'pg_ctl', [
      '-D',
      data,
      '-o',
      options,
      '-l',
      path.join(dir, 'log'),
      '-w',
      'start',
    ]);
  const stop = () => runBinary(bin, 'pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  start();
  const base = `postgres://ralph:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  return {
    async database() {
      const name = `ralph_test_${process.pid}_${++databases}`;
      const admin = new pg.Client({ connectionString: `${base}/postgres` });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return `${base}/${name}`;
    },
    stop,
    start,
    close() {
      try {
        stop();
      } catch {
        // Already stopped.
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
