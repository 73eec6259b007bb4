// B. Faults survived: stale and stolen locks (T06, T07), failing writes (T08), a full or
// read-only disk (T23, T24), an interrupt file the watch misses (T25), a wedged loop (T26),
// a queue broken mid-run (T28), a runner killed mid-line (T16) and a poison item (T32).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { guardedWorkspace, ledger, logEvents } from '../support/guarded.js';
import { eventually, waitUntil } from '../support/wait.js';
import { listFiles, ralph, readQueue, readSessions, tempDir } from '../support/workspace.js';
import { checkInvariants, killRunners, recordFigures, snapshot, startRunner } from './harness.js';

const STORE_MODULE = new URL('../../dist/queue/store.js', import.meta.url).href;

function mountTmpfs(dir: string, size: string): boolean {
  return (
    spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir]).status === 0
  );
}

/** Whether this machine lets the tests mount a small tmpfs (root, or a capable container). */
const CAN_MOUNT = (() => {
  const dir = fs.mkdtempSync('/tmp/ralph-mount-probe-');
  const ok = mountTmpfs(dir, '1m');
  if (ok) spawnSync('umount', [dir]);
  fs.rmdirSync(dir);
  return ok;
})();

async function onTmpfs(size: string): Promise<{ mount: string; done: () => void }> {
  const mount = await tempDir('ralph-tmpfs-');
  if (!mountTmpfs(mount, size)) throw new Error(`cannot mount a tmpfs on ${mount}`);
  return { mount, done: () => spawnSync('umount', ['-l', mount]) };
}

function contents(root: string): Map<string, string> {
  return new Map(listFiles(root).map((f) => [f, fs.readFileSync(path.join(root, f), 'base64')]));
}

afterEach(() => {
  vi.restoreAllMocks();
  killRunners();
});

describe('B. faults', () => {
  it('T06 takes over the locks a SIGKILLed process left behind, and says so', async () => {
    const { root, env } = await guardedWorkspace();
    const state = path.join(root, 'state');
    const old = new Date(Date.now() - 60_000);
    // The queue lock of an `add` killed mid-write, and the runner lock of a killed runner.
    fs.mkdirSync(path.join(state, 'queue.json.lock'));
    fs.utimesSync(path.join(state, 'queue.json.lock'), old, old);
    fs.writeFileSync(
      path.join(state, 'runner.lock'),
      JSON.stringify({ pid: 999_999, startTime: '1', startedAt: old.toISOString() }),
    );
    fs.mkdirSync(path.join(state, 'runner.lock.lock'));
    expect(
      (await ralph(root, ['add', 'after a crash', '--id', 'a', '--body', '#behave: ok'])).code,
    ).toBe(0);
    const run = await ralph(root, ['run', '--drain'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({ id: 'a', status: 'done' });
    expect(logEvents(root).find((e) => e.event === 'stale_lock_reclaimed')).toMatchObject({
      holder: { pid: 999_999 },
    });
    const report = await checkInvariants(root, { ids: ['a'], cleanExit: true });
    expect(report.problems).toEqual([]);
  });

  it('T07 loses no update when a stalled holder’s lock is taken, and does not crash', async () => {
    const { root } = await guardedWorkspace();
    const queue = path.join(root, 'state', 'queue.json');
    const item = (id: string) => ({ id, title: id, createdAt: new Date().toISOString() });
    // The holder reads under the lock, then its event loop stalls past the lock's stale time
    // (15 s) before it writes; meanwhile another writer takes the stale lock and adds an item.
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
        const { QueueStore } = await import(${JSON.stringify(STORE_MODULE)});
        const store = new QueueStore(${JSON.stringify(queue)});
        let calls = 0;
        await store.update((items) => {
          if (calls++ === 0) {
            process.stdout.write('stalling\\n');
            Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 17000);
          }
          return { items: [...items, ${JSON.stringify(item('holder'))}], value: undefined };
        });
        // More than one call: the first commit was refused when the lock was taken.
        process.stdout.write('written after ' + calls + ' calls\\n');
        `,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    holder.stdout.on('data', (c: Buffer) => (out += c.toString()));
    holder.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((resolve) => holder.on('exit', resolve));
    await eventually(() => Promise.resolve(out.includes('stalling')), 10_000, 'the holder');
    const contender = await ralph(root, ['add', 'contender', '--id', 'contender']);
    expect(contender.code, contender.stderr).toBe(0);
    expect(await exited, err).toBe(0);
    expect(out).toMatch(/written after [2-9] calls/);
    expect(
      readQueue(root)
        .items.map((i) => i.id)
        .sort(),
    ).toEqual(['contender', 'holder']);
  }, 60_000);

  it('T08 survives failing fsyncs mid-commit: state intact, paused, then resumed', async () => {
    const { root, env } = await guardedWorkspace();
    const gate = path.join(root, 'gate');
    await ralph(root, ['add', 'gated', '--id', 'g', '--body', `#behave: gated gate=${gate}`]);
    // A SIGKILL between a temp write and its rename leaves temp files: swept at start.
    // Their writers (pids above any pid_max) are gone.
    fs.writeFileSync(path.join(root, 'state', 'queue.json.99999991.0.tmp'), '{"half":');
    fs.writeFileSync(path.join(root, 'state', 'budget.json.99999992.3.tmp'), '');
    fs.writeFileSync(path.join(root, 'state', '.queue.json.sha1.99999993.1.tmp'), '');
    fs.writeFileSync(path.join(root, 'docs', 'sessions', 'index.json.99999994.7.tmp'), '');
    let failing = false;
    const realFsync = fs.fsync;
    vi.spyOn(fs, 'fsync').mockImplementation((fd: number, callback: (e: Error | null) => void) => {
      if (!failing) return realFsync(fd, callback);
      const error = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO', errno: -5 });
      process.nextTick(callback, error);
    });
    const queueBefore = () => fs.readFileSync(path.join(root, 'state', 'queue.json'), 'utf8');
    // A runner that waits for a person through a pause (a drained one ends: see T23's sibling).
    const running = ralph(root, ['run', '--max-iterations', '1'], env);
    await eventually(() => Promise.resolve(ledger(root).length > 0), 20_000, 'the agent');
    const claimed = queueBefore();
    failing = true;
    fs.writeFileSync(gate, '');
    await eventually(
      () => Promise.resolve(logEvents(root).some((e) => e.event === 'pause_write_failed')),
      20_000,
      'a failed commit',
    );
    // The commit failed: the old state is intact and valid, and no temp file is left.
    expect(queueBefore()).toBe(claimed);
    expect(fs.readdirSync(path.join(root, 'state')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    failing = false;
    await waitUntil(
      path.join(root, 'state'),
      () => fs.existsSync(path.join(root, 'state', 'interrupt-request.txt')),
      20_000,
      'the pause',
    );
    // The session's spend is the first thing recorded after it (before its item moves on).
    expect(fs.readFileSync(path.join(root, 'state', 'interrupt-request.txt'), 'utf8')).toMatch(
      /recording the spend failed: EIO/,
    );
    expect((await ralph(root, ['resume'])).code).toBe(0);
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    expect(readQueue(root).items[0]).toMatchObject({ id: 'g', status: 'done', attempts: 1 });
    expect(logEvents(root).some((e) => e.event === 'state_recovered')).toBe(true);
    const report = await checkInvariants(root, { ids: ['g'], cleanExit: true });
    expect(report.problems).toEqual([]);
  });

  it.skipIf(!CAN_MOUNT)(
    'T23 pauses on a full disk with the item interrupted, and resumes once space is freed',
    async () => {
      // The disk fills up for real (ENOSPC): the guard is set to one byte, so the flood is
      // stopped only once nothing is left, and the pause cannot be written until the ballast
      // (most of the disk) is freed. A guard stopping the flood while a page was left let the
      // pause be written at once, which ends a draining run before the test could resume it.
      const { mount, done } = await onTmpfs('8m');
      try {
        const { root, env } = await guardedWorkspace(
          { run: { minFreeBytes: 1, pollInterval: '0.3s' } },
          path.join(mount, 'ws'),
        );
        await ralph(root, ['add', 'flood', '--id', 'f', '--body', '#behave: flood onresume=ok']);
        const ballast = path.join(mount, 'ballast');
        fs.writeFileSync(ballast, Buffer.alloc(6 * 1024 * 1024));
        const before = snapshot(root);
        // A runner that waits for a person through a pause (a drained one ends: see below).
        const runner = startRunner(root, env, ['run', '--max-iterations', '2']);
        await eventually(
          () => Promise.resolve(runner.stdout().includes('"event":"pausing"')),
          30_000,
          'a pause',
        ).catch((error: unknown) => {
          throw new Error(`${String(error)}\n${runner.stdout()}\n${runner.stderr()}`);
        });
        // Full: nothing settled as a success, and the queue file is whole.
        expect(readQueue(root).items[0]?.status).not.toBe('done');
        fs.rmSync(ballast);
        await waitUntil(
          path.join(root, 'state'),
          () => fs.existsSync(path.join(root, 'state', 'interrupt-request.txt')),
          20_000,
          'the pause file',
        );
        expect(fs.readFileSync(path.join(root, 'state', 'interrupt-request.txt'), 'utf8')).toMatch(
          /ENOSPC|disk is almost full/,
        );
        expect((await ralph(root, ['resume'])).code).toBe(0);
        const { code } = await runner.exited;
        expect(code, runner.stderr()).toBe(0);
        const [flooded, resumed] = readSessions(root);
        expect(flooded).toMatchObject({ status: 'interrupted', outcome: { kind: 'disk_full' } });
        expect(resumed).toMatchObject({ status: 'completed' });
        expect(typeof resumed?.resumedFrom).toBe('string');
        expect(readQueue(root).items[0]).toMatchObject({ status: 'done', attempts: 1 });
        const report = await checkInvariants(root, { ids: ['f'], before, cleanExit: true });
        expect(report.problems).toEqual([]);
      } finally {
        done();
      }
    },
    90_000,
  );

  it.skipIf(!CAN_MOUNT)(
    'T23 on a drained run: a disk too full to write even the pause ends the run with its reason, and loses nothing',
    async () => {
      const { mount, done } = await onTmpfs('8m');
      try {
        const { root, env } = await guardedWorkspace(
          { run: { minFreeBytes: 1024, pollInterval: '0.3s' } },
          path.join(mount, 'ws'),
        );
        await ralph(root, [
          'add',
          'flood',
          '--id',
          'f',
          '--body',
          '#behave: sequence steps=flood,ok',
        ]);
        const ballast = path.join(mount, 'ballast');
        fs.writeFileSync(ballast, Buffer.alloc(6 * 1024 * 1024));
        const runner = startRunner(root, env, ['run', '--drain']);
        const { code } = await runner.exited;
        // It ends (never waits all night for a disk nobody frees), with one line that says why.
        expect([6, 74], runner.stderr()).toContain(code);
        expect(runner.stderr().trim().split('\n').at(-1)).toMatch(
          /ENOSPC|no space left|disk is almost full/,
        );
        fs.rmSync(ballast);
        await ralph(root, ['resume']);
        const again = await ralph(root, ['run', '--drain'], env);
        expect(again.code, again.stderr).toBe(0);
        expect(readQueue(root).items[0]).toMatchObject({ id: 'f', status: 'done' });
      } finally {
        done();
      }
    },
    90_000,
  );

  it.skipIf(!CAN_MOUNT)('T24 refuses a read-only state directory and touches nothing', async () => {
    const { mount, done } = await onTmpfs('4m');
    try {
      const { root, env } = await guardedWorkspace({}, path.join(mount, 'ws'));
      await ralph(root, ['add', 'one', '--id', 'one']);
      const before = contents(root);
      expect(spawnSync('mount', ['-o', 'remount,ro', mount]).status).toBe(0);
      const run = await ralph(root, ['run', '--drain'], env);
      // EX_IOERR, as docs/troubleshooting.md's exit codes say for a file system that refuses.
      expect(run.code).toBe(74);
      expect(run.stderr).toMatch(/state is not writable \(EROFS\)/);
      const add = await ralph(root, ['add', 'two', '--id', 'two']);
      expect(add.code).toBe(74);
      expect(add.stderr).toMatch(/EROFS/);
      expect(add.stderr).not.toMatch(/internal error/);
      // No pointer to a log that could not be written there.
      expect(add.stderr).not.toMatch(/the full error is in/);
      expect(contents(root)).toEqual(before);
    } finally {
      done();
    }
  });

  it('T25 sees the interrupt file without a working fs.watch, within a poll', async () => {
    const { root, env } = await guardedWorkspace();
    // As on a mount where watching is not supported: fs.watch throws.
    vi.spyOn(fs, 'watch').mockImplementation(() => {
      throw Object.assign(new Error('ENOSYS: watch not supported'), { code: 'ENOSYS' });
    });
    const gate = path.join(root, 'gate');
    await ralph(root, [
      'add',
      'a',
      '--id',
      'a',
      '--body',
      `#behave: gated gate=${gate} onresume=ok`,
    ]);
    await ralph(root, ['add', 'b', '--id', 'b']);
    // Without --drain: a drained run would end at the pause.
    const running = ralph(root, ['run', '--max-iterations', '3'], env);
    await eventually(() => Promise.resolve(ledger(root).length > 0), 20_000, 'the agent');
    // Created by rename, deleted and re-created at once: still a pause.
    const interrupt = path.join(root, 'state', 'interrupt-request.txt');
    fs.writeFileSync(`${interrupt}.tmp`, 'by rename\n');
    fs.renameSync(`${interrupt}.tmp`, interrupt);
    fs.rmSync(interrupt);
    fs.writeFileSync(interrupt, 'again\n');
    await eventually(
      () => Promise.resolve(readQueue(root).items[0]?.status === 'interrupted'),
      20_000,
      'the interruption',
    );
    // No claim while the file exists.
    await eventually(
      () => Promise.resolve(logEvents(root).some((e) => e.event === 'paused')),
      20_000,
      'the pause',
    );
    expect(readQueue(root).items.map((i) => i.status)).toEqual(['interrupted', 'pending']);
    fs.rmSync(interrupt);
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    expect(readQueue(root).items.map((i) => i.status)).toEqual(['done', 'done']);
  });

  it('T26 ends the runner when the loop wedges, instead of hanging', async () => {
    const { root, env } = await guardedWorkspace({ run: { watchdog: 1 } });
    // A read that never returns, as on a hung mount: a named pipe no one writes.
    const queue = path.join(root, 'state', 'queue.json');
    fs.rmSync(queue, { force: true });
    expect(spawnSync('mkfifo', [queue]).status).toBe(0);
    const runner = startRunner(root, env);
    expect(await runner.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(runner.stderr()).toMatch(/watchdog: reading the queue made no progress for 1 s/);
  });

  it('T28 quarantines a queue broken mid-run, overwrites nothing, and goes on once repaired', async () => {
    const { root, env } = await guardedWorkspace();
    const gate = path.join(root, 'gate');
    await ralph(root, ['add', 'gated', '--id', 'g', '--body', `#behave: gated gate=${gate}`]);
    await ralph(root, ['add', 'next', '--id', 'n']);
    // A runner that waits for a person through the pause (a drained one ends with exit 6).
    const runner = startRunner(root, env, ['run', '--max-iterations', '2']);
    const queue = path.join(root, 'state', 'queue.json');
    await waitUntil(path.join(root, 'state'), () => readQueue(root).items[0]?.status === 'running');
    const good = fs.readFileSync(queue, 'utf8');
    const broken = good.slice(0, good.length / 2);
    fs.writeFileSync(queue, broken);
    fs.writeFileSync(gate, '');
    const interrupt = path.join(root, 'state', 'interrupt-request.txt');
    await waitUntil(path.join(root, 'state'), () => fs.existsSync(interrupt), 20_000, 'the alert');
    // Whichever read the queue first says so: the settle of g, or the lander looking for work.
    expect(fs.readFileSync(interrupt, 'utf8')).toMatch(
      /(settling item g|reading the items waiting to land) failed: .*queue\.json: invalid JSON[\s\S]*last valid queue/,
    );
    // Nothing overwritten; the bad bytes and the last valid queue are kept for the operator.
    expect(fs.readFileSync(queue, 'utf8')).toBe(broken);
    const quarantine = path.join(root, 'state', 'quarantine');
    const kept = fs.readdirSync(quarantine);
    const copy = kept.find((n) => n.endsWith('.bad.json')) ?? '';
    const lastGood = kept.find((n) => n.endsWith('.last-good.json')) ?? '';
    expect(fs.readFileSync(path.join(quarantine, copy), 'utf8')).toBe(broken);
    expect(fs.statSync(path.join(quarantine, lastGood)).mode & 0o777).toBe(0o600);
    // The operator restores the last valid queue and resumes.
    fs.copyFileSync(path.join(quarantine, lastGood), queue);
    expect((await ralph(root, ['resume'])).code).toBe(0);
    const { code } = await runner.exited;
    expect(code, runner.stderr()).toBe(0);
    expect(readQueue(root).items.map((i) => [i.id, i.status])).toEqual([
      ['g', 'done'],
      ['n', 'done'],
    ]);
    const report = await checkInvariants(root, { ids: ['g', 'n'], cleanExit: true });
    expect(report.problems).toEqual([]);
  });

  it('T16 flags and repairs the archive of an agent killed mid-line', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, [
      'add',
      'half',
      '--id',
      'h',
      '--body',
      '#behave: sequence steps=partial-hang,ok',
    ]);
    const first = startRunner(root, env);
    const sessions = path.join(root, 'docs', 'sessions');
    await waitUntil(sessions, () =>
      fs
        .readdirSync(sessions)
        .some(
          (n) =>
            n.endsWith('.ndjson') &&
            fs.readFileSync(path.join(sessions, n), 'utf8').includes('half'),
        ),
    );
    first.child.kill('SIGKILL');
    await first.exited;
    const second = startRunner(root, env);
    expect((await second.exited).code, second.stderr()).toBe(0);
    const [killed] = readSessions(root);
    expect(killed).toMatchObject({ status: 'killed', streamIssues: { truncated: 1 } });
    const archive = fs.readFileSync(
      path.join(sessions, `${String(killed?.sessionId)}.ndjson`),
      'utf8',
    );
    expect(archive.endsWith('"text":"half\n')).toBe(true);
    const report = await checkInvariants(root, { ids: ['h'], cleanExit: true });
    expect(report.problems).toEqual([]);
  });

  it('T32 ends a poison item that kills the runner every time after its attempts', async () => {
    const { root, env } = await guardedWorkspace();
    await ralph(root, [
      'add',
      'poison',
      '--id',
      'p',
      '--body',
      '#behave: hang',
      '--max-attempts',
      '3',
    ]);
    await ralph(root, ['add', 'after', '--id', 'ok']);
    let kills = 0;
    for (let n = 1; n <= 3; n++) {
      const runner = startRunner(root, env);
      await eventually(() => Promise.resolve(ledger(root).length >= n), 20_000, `start ${n}`);
      runner.child.kill('SIGKILL');
      await runner.exited;
      kills++;
    }
    const last = startRunner(root, env);
    expect((await last.exited).code, last.stderr()).toBe(0);
    expect(readQueue(root).items.map((i) => [i.id, i.status])).toEqual([
      ['p', 'failed'],
      ['ok', 'done'],
    ]);
    expect(readQueue(root).items[0]).toMatchObject({ attempts: 3 });
    expect(String(readQueue(root).items[0]?.lastError)).toMatch(/runner died/);
    const report = await checkInvariants(root, { ids: ['p', 'ok'], cleanExit: true });
    recordFigures({ scenario: 'T32 poison item', items: 2, kills, ...report });
    expect(report.problems).toEqual([]);
  });
});
