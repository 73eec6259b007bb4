// `ralph sessions` over 10,000 archived sessions (issue "morning after"): the index is read,
// not the records; timed against `node -e 0` in the same run.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, elapsed, run, stats, workspace } from './lib.mjs';

export async function sessionsListing({ sessions, runs }) {
  const root = workspace(['true']);
  const start = Date.parse('2026-01-01T00:00:00Z');
  const lines = [];
  for (let i = 0; i < sessions; i++) {
    lines.push(
      JSON.stringify({
        sessionId: randomUUID(),
        itemId: `item-${i % 500}`,
        itemTitle: `Item ${i % 500}`,
        status: i % 7 === 0 ? 'failed' : 'completed',
        outcome: i % 7 === 0 ? 'no_result' : 'success',
        message: 'completed in 4 turns',
        startedAt: new Date(start + i * 60_000).toISOString(),
        endedAt: new Date(start + i * 60_000 + 45_000).toISOString(),
        durationMs: 45_000,
        turns: 4,
        toolCalls: 7,
        costUsd: 0.0123,
      }),
    );
  }
  fs.writeFileSync(path.join(root, 'docs', 'sessions', 'index.jsonl'), `${lines.join('\n')}\n`);
  const node = [];
  const listing = [];
  for (let r = 0; r < runs; r++) {
    node.push(await elapsed(() => run(process.execPath, ['-e', '0'])));
    listing.push(await elapsed(() => run(process.execPath, [BIN, '-C', root, 'sessions'])));
  }
  fs.rmSync(root, { recursive: true, force: true });
  const n = stats(node);
  const l = stats(listing);
  return {
    name: `ralph sessions, ${sessions} sessions`,
    value: l.median / 1000,
    unit: 's',
    measure: 'absolute',
    target: '< 1',
    ok: l.median < 1000,
    detail: `${l.median.toFixed(0)} ms (min ${l.min.toFixed(0)}, max ${l.max.toFixed(0)}), ${(l.median / n.median).toFixed(1)}x node -e 0 (${n.median.toFixed(0)} ms)`,
  };
}
