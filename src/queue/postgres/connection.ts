import fs from 'node:fs';
import pg from 'pg';
import { displayedUrl } from '../../config/database-url.js';
import type { Config } from '../../config/schema.js';
import { RalphError, UnavailableError } from '../../lib/errors.js';

/** Errors of the connection rather than of the statement: the database is away, not wrong. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // Shut down by an administrator, crashed, starting up or shutting down, too many clients.
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|not queryable|the database system is (starting up|shutting down)/i;

/** Whether `error` says the database cannot be reached now (worth waiting for). */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08')))
    return true;
  return CONNECTION_MESSAGES.test(error.message);
}

/** A database operation's error as ralph reports it: never with the URL's password. */
export function queueError(error: unknown, url: string): Error {
  if (error instanceof RalphError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const where = displayedUrl(url);
  if (isConnectionError(error))
    return new UnavailableError(`the queue's database ${where} cannot be reached: ${message}`);
  return error instanceof Error ? error : new Error(`${where}: ${message}`);
}

/** TLS options from `queue.tls`, its files read now (a missing file is named). */
function tlsOptions(tls: Config['queue']['tls']): pg.PoolConfig['ssl'] {
  if (tls === undefined) return undefined;
  const read = (field: 'ca' | 'cert' | 'key') => {
    const file = tls[field];
    if (file === undefined) return undefined;
    try {
      return fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new RalphError(`queue.tls.${field}: cannot read ${file}: ${(error as Error).message}`);
    }
  };
  return {
    ca: read('ca'),
    cert: read('cert'),
    key: read('key'),
    rejectUnauthorized: tls.rejectUnauthorized,
  };
}

/** How ralph connects: TLS, timeouts, keepalives. */
function clientConfig(url: string, config: Config['queue']): pg.ClientConfig {
  return {
    connectionString: url,
    ssl: tlsOptions(config.tls),
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
    // A statement that hangs (a lock held by a wedged peer) fails rather than hold the night.
    statement_timeout: 60_000,
    application_name: 'ralph',
  };
}

/** One connection of its own (a listener's: notifications need a connection kept open). */
export function openClient(url: string, config: Config['queue']): pg.Client {
  return new pg.Client(clientConfig(url, config));
}

/** A pool of connections to the queue's database. */
export function openPool(url: string, config: Config['queue'], max: number): pg.Pool {
  const pool = new pg.Pool({
    ...clientConfig(url, config),
    max,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection that breaks must not crash the process: the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

/** Runs `work` in one transaction on one connection, rolled back if it throws. */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // The pool stops listening to a connection it lends: one the server ends between two queries
  // of the transaction (an outage, a restart) must not crash the process with an unhandled
  // 'error' event. The next query fails on it, and it is thrown away.
  const onError = (error: Error) => (broken = error);
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const value = await work(client);
    await client.query('COMMIT');
    return value;
  } catch (error) {
    if (isConnectionError(error)) broken = error as Error;
    else if (broken === undefined)
      await client.query('ROLLBACK').catch((e: unknown) => (broken = e as Error));
    throw error;
  } finally {
    client.off('error', onError);
    // A connection that broke is thrown away, not given to the next query.
    client.release(broken);
  }
}
