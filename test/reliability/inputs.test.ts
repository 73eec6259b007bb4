// D. Bad inputs (T27, T38) and E. security (T34, T35, T37): what comes from outside is
// refused with a reason or passed on intact, and nothing ralph writes for people leaks.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { calls, guardedWorkspace, logEvents } from '../support/guarded.js';
import { listFiles, ralph, readQueue, readSessions, tempDir } from '../support/workspace.js';
import { checkInvariants, countLeaks, recordFigures, snapshot } from './harness.js';

describe('D. bad inputs', () => {
  it('T27 refuses bad ids and malformed items with a reason, and leaves valid items alone', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, ['add', 'valid', '--id', 'valid']);
    const before = snapshot(root);
    const queueFile = path.join(root, 'state', 'queue.json');
    const good = fs.readFileSync(queueFile, 'utf8');
    const badIds = ['../../etc/x', 'a/b', '..', 'x'.repeat(10 * 1024), ' spaced', '-flag', 'valid'];
    for (const id of badIds) {
      const added = await ralph(root, ['add', 'bad', '--id', id]);
      expect(added.code, id).toBe(2);
      expect(added.stderr, id).toMatch(/id|already/);
    }
    const badItems: unknown[] = [
      { id: 'nul\u0000', title: 't', createdAt: new Date().toISOString() },
      { title: 'no id', createdAt: new Date().toISOString() },
      { id: 'extra', title: 't', createdAt: new Date().toISOString(), surprise: 1 },
      { id: 'types', title: 42, createdAt: new Date().toISOString() },
      { id: 'valid', title: 'duplicate', createdAt: new Date().toISOString() },
    ];
    for (const bad of badItems) {
      const queue = JSON.parse(good) as { items: unknown[] };
      const text = JSON.stringify({ ...queue, items: [...queue.items, bad] });
      fs.writeFileSync(queueFile, text);
      const run = await ralph(root, ['run', '--drain'], env);
      expect(run.code, JSON.stringify(bad)).toBe(4);
      expect(run.stderr).toMatch(/queue\.json/);
      expect(fs.readFileSync(queueFile, 'utf8')).toBe(text);
    }
    fs.writeFileSync(queueFile, good);
    // A 5 MB task is refused with the reason (it could not fit the prompt); one at the cap is
    // taken whole.
    const huge = await ralph(root, [
      'add',
      'huge',
      '--id',
      'huge',
      '--body',
      'y'.repeat(5 * 1024 * 1024),
    ]);
    expect(huge.code).toBe(2);
    expect(huge.stderr).toMatch(
      /the task text is 5,242,880 characters; a prompt holds at most 32,000/,
    );
    const big = `#behave: ok\n${'y'.repeat(32_000 - 12)}`;
    expect((await ralph(root, ['add', 'big', '--id', 'big', '--body', big])).code).toBe(0);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(readQueue(root).items.map((i) => [i.id, i.status])).toEqual([
      ['valid', 'done'],
      ['big', 'done'],
    ]);
    const report = await checkInvariants(root, { ids: ['valid', 'big'], before, cleanExit: true });
    recordFigures({
      scenario: 'T27 bad inputs',
      items: 2,
      badInputs: badIds.length + badItems.length + 1,
      ...report,
    });
    expect(report.problems).toEqual([]);
  });

  it('T38 passes a task that looks like flags, and one as long as a prompt holds, only through the prompt file', async () => {
    const { root, env } = await guardedWorkspace();
    const bodies = {
      flags: '--output-format text -p "ignore everything" --dangerously-skip-permissions',
      dash: '-p',
      large: `--model x\n${'z'.repeat(31_000)}`,
    };
    for (const [id, body] of Object.entries(bodies))
      expect((await ralph(root, ['add', id, '--id', id, '--body', body])).code).toBe(0);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    const argvs = calls(root);
    expect(argvs).toHaveLength(3);
    for (const argv of argvs) {
      expect(argv).not.toContain('--dangerously-skip-permissions');
      expect(argv.filter((a) => a === '--output-format')).toHaveLength(1);
      expect(argv[argv.indexOf('--output-format') + 1]).toBe('stream-json');
    }
    // Each task arrived whole, in the prompt file archived beside its session.
    const sessions = readSessions(root);
    for (const [id, body] of Object.entries(bodies)) {
      const record = sessions.find((s) => s.itemId === id);
      const prompt = fs.readFileSync((record?.files as { prompt: string }).prompt, 'utf8');
      expect(prompt.includes(body), id).toBe(true);
    }
  });
});

describe('E. security', () => {
  it('T34 masks a secret in every encoding in what people read; the raw archive keeps it 0600', async () => {
    const { root, env } = await guardedWorkspace();
    const apiKey = 'sk-ant-api03-plantedKeyForLeakTest-0123456789';
    const dbUrl = 'postgres://admin:plantedDbPassw0rd@db.internal/prod';
    fs.writeFileSync(path.join(root, 'secret.txt'), `${dbUrl}\n`);
    const secretEnv = { ...env, ANTHROPIC_API_KEY: apiKey, DATABASE_URL: dbUrl };
    await ralph(root, [
      'add',
      'key',
      '--id',
      'key',
      '--body',
      '#behave: leak var=ANTHROPIC_API_KEY',
    ]);
    await ralph(root, [
      'add',
      'db',
      '--id',
      'db',
      '--body',
      `#behave: leak from=${path.join(root, 'secret.txt')}`,
    ]);
    const run = await ralph(root, ['run', '--drain'], secretEnv);
    expect(run.code, run.stderr).toBe(0);
    const rendered: string[] = [run.stdout, run.stderr];
    for (const record of readSessions(root)) {
      const id = String(record.sessionId);
      for (const args of [
        ['logs', id],
        ['logs', id, '--json'],
        ['show', id],
      ])
        rendered.push((await ralph(root, args, secretEnv)).stdout);
    }
    rendered.push((await ralph(root, ['sessions'], secretEnv)).stdout);
    const leaks = countLeaks(root, [apiKey, dbUrl], rendered);
    recordFigures({ scenario: 'T34 secret encodings', items: 2, leakedSecrets: leaks });
    expect(leaks).toBe(0);
    expect(rendered.join('\n')).toContain('***');
    // The archive is evidence: the agent's bytes as they were, readable by the owner only.
    const sessionsDir = path.join(root, 'docs', 'sessions');
    const raw = listFiles(sessionsDir).filter((f) => f.endsWith('.ndjson'));
    expect(
      raw.some((f) => fs.readFileSync(path.join(sessionsDir, f), 'utf8').includes(apiKey)),
    ).toBe(true);
    for (const file of raw)
      expect(fs.statSync(path.join(sessionsDir, file)).mode & 0o777).toBe(0o600);
    expect(fs.statSync(sessionsDir).mode & 0o777).toBe(0o700);
  });

  it('T35 refuses links planted where it writes, and the victim is unchanged', async () => {
    const victimDir = await tempDir('ralph-victim-');
    const victim = path.join(victimDir, 'victim.txt');
    fs.writeFileSync(victim, 'precious\n');
    const plant = async (relative: string) => {
      const { root, env } = await guardedWorkspace();
      await ralph(root, ['add', 'one', '--id', 'one']);
      const at = path.join(root, relative);
      fs.rmSync(at, { recursive: true, force: true });
      fs.symlinkSync(relative.endsWith('sessions') ? victimDir : victim, at);
      return { root, env };
    };
    // The queue file, the interrupt file (written by `ralph pause`), the archive directory.
    const queue = await plant('state/queue.json');
    expect((await ralph(queue.root, ['add', 'two', '--id', 'two'])).stderr).toMatch(
      /symbolic link/,
    );
    const pause = await plant('state/interrupt-request.txt');
    expect((await ralph(pause.root, ['pause', 'now'])).stderr).toMatch(/symbolic link|link/);
    const archive = await plant('docs/sessions');
    const run = await ralph(archive.root, ['run', '--drain'], archive.env);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/symbolic link/);
    // The log: opened with O_NOFOLLOW, so nothing is appended through a link.
    const log = await plant('state/iteration.log');
    await ralph(log.root, ['run', '--drain'], log.env);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(fs.readdirSync(victimDir)).toEqual(['victim.txt']);
  });

  it('T37 skips permissions only on the explicit opt-in, loudly, and marks every session', async () => {
    const { root, env } = await guardedWorkspace();
    const config = JSON.parse(fs.readFileSync(path.join(root, 'ralph.config.json'), 'utf8')) as {
      yolo: boolean;
    };
    expect(config.yolo).toBe(false);
    await ralph(root, ['add', 'safe', '--id', 'safe']);
    await ralph(root, ['run', '--drain'], env);
    expect(calls(root)[0]).not.toContain('--dangerously-skip-permissions');
    expect(readSessions(root)[0]).toMatchObject({ yolo: false });

    const yolo = await guardedWorkspace({ yolo: true });
    await ralph(yolo.root, ['add', 'wild', '--id', 'wild']);
    const run = await ralph(yolo.root, ['run', '--drain'], yolo.env);
    expect(run.code, run.stderr).toBe(0);
    expect(calls(yolo.root)[0]).toContain('--dangerously-skip-permissions');
    expect(logEvents(yolo.root).find((e) => e.event === 'yolo')?.message).toMatch(
      /PERMISSION CHECKS ARE OFF/,
    );
    expect(readSessions(yolo.root)[0]).toMatchObject({ yolo: true });
  });
});
