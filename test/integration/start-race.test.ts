// A runner's start-up recovery must never remove the temp file of a live writer: a `ralph add`
// racing a runner's start lost its item when it did.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FAKE_CLAUDE, RALPH_BIN, makeWorkspace, ralph, readQueue } from '../support/workspace.js';

const exec = promisify(execFile);

describe('start-up recovery and live writers', () => {
  it("keeps a live writer's temp file and removes a dead writer's", async () => {
    const root = await makeWorkspace({ claude: { command: [FAKE_CLAUDE] } });
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

  it('loses no item when adds race runners that start and stop again and again', async () => {
    const root = await makeWorkspace({
      claude: { command: [FAKE_CLAUDE] },
      run: { pollInterval: '0.2s' },
    });
    const adders = 6;
    const each = 5;
    let adding = true;
    const failures: string[] = [];
    const runners = (async () => {
      let starts = 0;
      while (adding || starts < 3) {
        starts++;
        // Exit 0 (drained) or 3 (another runner holds the lock): both are fine here.
        await exec(process.execPath, [RALPH_BIN, '-C', root, 'run', '--drain']).catch(
          (error: { code?: number; stderr?: string }) => {
            if (error.code !== 3) failures.push(`run exit ${error.code}: ${error.stderr}`);
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
