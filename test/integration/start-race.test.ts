// A runner's start-up recovery must never remove the temp file of a live writer: a `ralph add`
// racing a runner's start lost its item when it did.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import fsp from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import { eventually } from '../support/wait.js';
import { FAKE_CLAUDE, RALPH_BIN, makeWorkspace, ralph, readQueue } from '../support/workspace.js';

const exec = promisify(execFile);

describe('start-up recovery and live writers', () => {
  it("keeps a live writer's temp file and removes a dead writer's", async () => {
    const root = await makeWorkspace({ clis: { claude: { command: [FAKE_CLAUDE] } } });
    const writer = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const state = path.join(root, 'state');
      const live = path.join(state, `queue.json.${writer.pid}.0.tmp`);
      const dead = path.join(state, 'queue.json.99999999.0.tmp');
      fs.writeFileSync(live, '{"version": 9');
      fs.writeFileSync(dead, '{"version": 9');
      expect((await ralph(root, ['run', '--drain'])).code).toBe(0);
      expect(fs.existsSync(live)).toBe(true);
      expect(fs.existsSync(dead)).toBe(false);
    } finally {
      writer.kill('SIGKILL');
    }
  });

  it('lets an add whose write is in flight while a runner starts finish, with its item kept', async () => {
    const root = await makeWorkspace({ clis: { claude: { command: [FAKE_CLAUDE] } } });
    const queueFile = path.join(root, 'state', 'queue.json');
    // The add's rename of its temp file waits until the runner's start-up recovery is done.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = true;
    const rename = fsp.rename.bind(fsp);
    const spy = vi.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      if (holding && to === queueFile) {
        holding = false;
        await held;
      }
      return rename(from, to);
    });
    try {
      const add = ralph(root, ['add', 'In flight', '--id', 'inflight']);
      await eventually(
        () =>
          Promise.resolve(fs.readdirSync(path.join(root, 'state')).some((n) => n.endsWith('.tmp'))),
        10_000,
        "the add's temp file",
      );
      // Recovery sweeps state/, then docs/sessions/: once it lists the second, the first is done.
      const readdir = fsp.readdir.bind(fsp) as (dir: string) => Promise<string[]>;
      const sessionsDir = path.join(root, 'docs', 'sessions');
      const listing = vi.spyOn(fsp, 'readdir').mockImplementation(((dir: string) => {
        if (dir === sessionsDir) release();
        return readdir(dir);
      }) as unknown as typeof fsp.readdir);
      try {
        const run = await ralph(root, ['run', '--drain']);
        expect(run.code, run.stderr).toBe(0);
      } finally {
        listing.mockRestore();
      }
      const added = await add;
      expect(added.code, added.stderr).toBe(0);
      expect(readQueue(root).items.map((i) => i.id)).toEqual(['inflight']);
    } finally {
      release();
      spy.mockRestore();
    }
  });

  it('loses no item when adds race runners that start and stop again and again', async () => {
    const root = await makeWorkspace({
      clis: { claude: { command: [FAKE_CLAUDE] } },
      run: { pollInterval: '0.2s' },
    });
    // What races is each runner's start-up recovery, not the items' sessions: paused, a drained
    // runner recovers, then ends at once (exit 6), whatever the machine's speed.
    await ralph(root, ['pause', 'only the start-up is raced here']);
    const adders = 6;
    const each = 5;
    let adding = true;
    const failures: string[] = [];
    const runners = (async () => {
      let starts = 0;
      while (adding || starts < 3) {
        starts++;
        // Exit 6 (paused) or 3 (another runner holds the lock): both are fine here.
        await exec(process.execPath, [RALPH_BIN, '-C', root, 'run', '--drain']).then(
          () => failures.push('a paused run --drain exited 0'),
          (error: { code?: number; stderr?: string }) => {
            if (error.code !== 3 && error.code !== 6)
              failures.push(`run exit ${error.code}: ${error.stderr}`);
          },
        );
      }
      return starts;
    })();
    await Promise.all(
      Array.from({ length: adders }, (_, a) =>
        (async () => {
          for (let i = 0; i < each; i++) {
            await exec(process.execPath, [
              RALPH_BIN,
              '-C',
              root,
              'add',
              'x',
              '--id',
              `a${a}-${i}`,
            ]).catch((error: { stderr?: string }) =>
              failures.push(`add a${a}-${i}: ${error.stderr}`),
            );
          }
        })(),
      ),
    );
    adding = false;
    expect(await runners).toBeGreaterThanOrEqual(3);
    expect(failures).toEqual([]);
    const ids = new Set(readQueue(root).items.map((item) => item.id));
    for (let a = 0; a < adders; a++)
      for (let i = 0; i < each; i++) expect(ids.has(`a${a}-${i}`), `a${a}-${i}`).toBe(true);
  });
});

describe('an unexpected error', () => {
  it('is one line saying what ralph was doing, on which file, and what to do; the rest is logged', async () => {
    const root = await makeWorkspace();
    // A directory where the budget file should be: reading it fails with EISDIR.
    fs.mkdirSync(path.join(root, 'state', 'budget.json'));
    const result = await ralph(root, ['status']);
    expect(result.code).toBe(74);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^ralph status: failed reading .*state\/budget\.json: it is a directory \(EISDIR\); .*; the full error is in .*iteration\.log$/,
    );
    expect(result.stderr).not.toMatch(/Error:|at .*\(/);
    const log = fs.readFileSync(path.join(root, 'state', 'iteration.log'), 'utf8');
    expect(log).toMatch(/"event":"command_failed".*EISDIR/);
  });
});
