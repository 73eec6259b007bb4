import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IndexCache } from '../../src/server/index-cache.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await fsp.rm(dir, { recursive: true, force: true });
});

function line(n: number): string {
  return `${JSON.stringify({
    sessionId: `s${n}`,
    itemId: `i${n}`,
    itemTitle: `item ${n}`,
    status: 'succeeded',
    outcome: 'success',
    startedAt: new Date(0).toISOString(),
    toolCalls: 0,
    costUsd: 0.5,
  })}\n`;
}

describe('the server index cache', () => {
  it('reads each line once when many requests ask at the same time', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'ralph-index-'));
    dirs.push(dir);
    const file = path.join(dir, 'index.jsonl');
    await fsp.writeFile(file, Array.from({ length: 19 }, (_, n) => line(n)).join(''));
    const cache = new IndexCache(dir);
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.current()));
    for (const answer of answers) {
      expect(answer.entries).toHaveLength(19);
      expect(answer.entries.reduce((sum, e) => sum + e.costUsd, 0)).toBe(9.5);
    }
    // Appended while requests arrive at once: read once, by one of them.
    await fsp.appendFile(file, line(19) + line(20));
    const later = await Promise.all(Array.from({ length: 5 }, () => cache.current()));
    for (const answer of later) expect(answer.entries.map((e) => e.sessionId)).toHaveLength(21);
  });
});
