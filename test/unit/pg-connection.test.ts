// How ralph connects to the queue's database: TLS from queue.tls, and which errors mean the
// database is away (waited for) rather than wrong.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseSecrets, displayedUrl } from '../../src/config/database-url.js';
import { UnavailableError } from '../../src/lib/errors.js';
import { isConnectionError, openPool, queueError } from '../../src/queue/postgres/connection.js';

const URL_WITH_PASSWORD = 'postgres://ralph:s3cr%40t-pass@db.internal:5432/ralph';

describe('the queue database connection', () => {
  it('passes queue.tls on: the CA, a client certificate and its key, read from their files', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-tls-'));
    for (const name of ['ca', 'cert', 'key'])
      fs.writeFileSync(path.join(dir, name), `${name} text`);
    const tls = {
      ca: path.join(dir, 'ca'),
      cert: path.join(dir, 'cert'),
      key: path.join(dir, 'key'),
      rejectUnauthorized: true,
    };
    const pool = openPool(
      URL_WITH_PASSWORD,
      { backend: 'postgres', name: 'default', lease: 60, tls },
      1,
    );
    const ssl = pool.options.ssl as Record<string, unknown>;
    // pg keeps the key out of sight (not enumerable), but passes it on.
    expect({ ...ssl, key: ssl.key }).toEqual({
      ca: 'ca text',
      cert: 'cert text',
      key: 'key text',
      rejectUnauthorized: true,
    });
    await pool.end();
    expect(() =>
      openPool(
        URL_WITH_PASSWORD,
        {
          backend: 'postgres',
          name: 'default',
          lease: 60,
          tls: { ca: path.join(dir, 'nope'), rejectUnauthorized: true },
        },
        1,
      ),
    ).toThrow(/^queue\.tls\.ca: cannot read .*nope/);
  });

  it('tells an unreachable database from a wrong statement, and never shows the password', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    const shutdown = Object.assign(
      new Error('terminating connection due to administrator command'),
      { code: '57P01' },
    );
    const terminated = new Error('Connection terminated unexpectedly');
    const syntax = Object.assign(new Error('syntax error at or near "SELEC"'), { code: '42601' });
    for (const error of [refused, shutdown, terminated])
      expect(isConnectionError(error)).toBe(true);
    expect(isConnectionError(syntax)).toBe(false);
    const reported = queueError(refused, URL_WITH_PASSWORD);
    expect(reported).toBeInstanceOf(UnavailableError);
    expect(reported.message).toBe(
      "the queue's database postgres://ralph:***@db.internal:5432/ralph cannot be reached: connect ECONNREFUSED 10.0.0.1:5432",
    );
    expect(queueError(syntax, URL_WITH_PASSWORD)).toBe(syntax);
    expect(displayedUrl('not a url')).toBe('(the database URL)');
    expect(databaseSecrets(URL_WITH_PASSWORD)).toEqual([
      URL_WITH_PASSWORD,
      's3cr%40t-pass',
      's3cr@t-pass',
    ]);
  });
});
