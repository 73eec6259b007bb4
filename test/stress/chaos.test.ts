// T02, kill -9 chaos: the built runner is SIGKILLed at random moments over a mixed queue and
// restarted until the queue drains; nothing may be lost, stuck or left running.
// Run with `npm run test:stress` (CHAOS_ITEMS and CHAOS_KILLS scale it).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSessionProcesses } from '../../src/agent/procfs.js';
import { QueueFileSchema } from '../../src/queue/item.js';
import { guardedWorkspace } from '../support/guarded.js';
import { RALPH_BIN, readQueue, readSessions } from '../support/workspace.js';

const ITEMS = Number(process.env.CHAOS_ITEMS ?? 60);
const KILLS = Number(process.env.CHAOS_KILLS ?? 20);
const BEHAVIOURS = ['ok', 'slow ms=150', 'slow ms=400', 'sequence steps=no-result,ok'];

function runOnce(
  root: string,
  env: Record<string, string>,
  killAfterMs?: number,
): Promise<'killed' | number> {
  const child = spawn(process.execPath, [RALPH_BIN, '-C', root, 'run', '--drain'], {
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  return new Promise((resolve) => {
    const timer =
      killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(signal === 'SIGKILL' ? 'killed' : (code ?? -1));
    });
  });
}

describe('kill -9 chaos', () => {
  it(`loses nothing over ${ITEMS} items and up to ${KILLS} kills`, async () => {
    const { root, env } = await guardedWorkspace({
      run: { maxConsecutiveFailures: 0, failureBackoffCap: 0, killGrace: '0.2s' },
    });
    const items = Array.from({ length: ITEMS }, (_, i) => ({
      id: `c${i}`,
      title: `chaos ${i}`,
      body: `#behave: ${BEHAVIOURS[i % BEHAVIOURS.length]}`,
      maxAttempts: 10,
      createdAt: new Date(Date.now() + i).toISOString(),
    }));
    fs.writeFileSync(path.join(root, 'state', 'queue.json'), JSON.stringify({ version: 1, items }));
    let kills = 0;
    for (let round = 0; round < KILLS + 50; round++) {
      const outcome = await runOnce(
        root,
        env,
        kills < KILLS ? 300 + Math.random() * 1700 : undefined,
      );
      if (outcome === 'killed') kills++;
      else if (outcome === 0) break;
      else throw new Error(`the runner exited with ${outcome}`);
      // Retries wait for their backoff: let the queue's retry times pass in the file.
      const file = path.join(root, 'state', 'queue.json');
      const queue = JSON.parse(fs.readFileSync(file, 'utf8')) as {
        items: { retryAfter?: string }[];
      };
      if (queue.items.some((i) => i.retryAfter !== undefined)) {
        for (const item of queue.items) delete item.retryAfter;
        fs.writeFileSync(file, JSON.stringify(queue, null, 2));
      }
    }
    const final = QueueFileSchema.parse(readQueue(root));
    // I1: every item exactly once, terminal.
    expect(final.items.map((i) => i.id).sort()).toEqual(items.map((i) => i.id).sort());
    expect(
      final.items.filter((i) => i.status !== 'done').map((i) => `${i.id}:${i.status}`),
    ).toEqual([]);
    // I3: a `start` in the ledger only for a claim that was written first.
    const ledger = fs.readFileSync(path.join(root, 'ledger.txt'), 'utf8').trim().split('\n');
    for (const item of final.items) {
      const starts = ledger.filter((l) => l.startsWith(`start ${item.id} `)).length;
      expect(starts, item.id).toBeLessThanOrEqual(item.sessions.length);
      expect(starts, item.id).toBeGreaterThanOrEqual(1);
    }
    // I4: nothing of any session alive.
    for (const record of readSessions(root)) {
      expect(
        await findSessionProcesses(undefined, {
          name: 'RALPH_SESSION_ID',
          value: String(record.sessionId),
        }),
      ).toEqual([]);
    }
    // I5: no temp files, no lock directories after the clean exit.
    const leftovers = fs
      .readdirSync(path.join(root, 'state'))
      .filter((n) => /\.\d+$/.test(n) || n.endsWith('.lock.lock') || n === 'current-session.json');
    expect(leftovers).toEqual([]);
    console.log(
      `chaos: ${ITEMS} items, ${kills} kills, ${final.items.length} done, 0 lost, 0 stuck, ${ledger.filter((l) => l.startsWith('start')).length - ITEMS} duplicate starts`,
    );
  }, 600_000);
});
