// A night of many items for the review inbox, written straight into a workspace's queue file
// and sessions index (no agent runs): done items of every size, failures, questions, items a
// reviewer sent back, sensitive paths, refused tool calls. The dashboard's Review test and the
// review bench use it; every figure is fixed by the item's number, so runs compare.
import fs from 'node:fs';
import path from 'node:path';

const SENSITIVE = [
  'db/migrations/0042_users.sql',
  '.github/workflows/ci.yml',
  'package-lock.json',
  'src/auth/session.ts',
];
const PLAIN = [
  'src/report.ts',
  'src/cli/main.ts',
  'test/report.test.ts',
  'README.md',
  'src/lib/text.ts',
];
const TOPICS = [
  'login test',
  'report flag',
  'retry backoff',
  'docs typo',
  'cache key',
  'CSV export',
  'dark mode',
  'rate limit',
];

/** A deterministic number in [0, n) from `i` and a salt. */
const pick = (i, salt, n) => ((i * 2654435761 + salt * 40503) >>> 0) % n;

/**
 * Writes `items` items and `sessionsPerItem` sessions each (their index lines) into the
 * workspace at `root`, replacing its queue; the items' ids are `item-<n>`.
 */
export function writeReviewNight(
  root,
  { items, sessionsPerItem = 1, start = Date.parse('2026-11-28T22:00:00Z') },
) {
  const queue = [];
  const index = [];
  for (let i = 0; i < items; i++) {
    const id = `item-${String(i).padStart(5, '0')}`;
    const kind = pick(i, 1, 20);
    const status =
      kind < 2 ? 'failed' : kind < 3 ? 'needs_input' : kind < 4 ? 'awaiting_merge' : 'done';
    const startedAt = new Date(start + i * 60_000).toISOString();
    const finishedAt = new Date(start + i * 60_000 + 45_000).toISOString();
    const sessions = [];
    for (let s = 0; s < sessionsPerItem; s++) {
      const sessionId = `${String(i).padStart(8, '0')}-0000-4000-8000-${String(s).padStart(12, '0')}`;
      sessions.push(sessionId);
      const last = s === sessionsPerItem - 1;
      const files = pick(i, 2, 12);
      const paths = [...PLAIN.slice(0, Math.min(files, PLAIN.length))];
      if (pick(i, 3, 7) === 0) paths.push(SENSITIVE[pick(i, 4, SENSITIVE.length)]);
      index.push({
        sessionId,
        itemId: id,
        itemTitle: `Fix the ${TOPICS[pick(i, 5, TOPICS.length)]} (${i})`,
        status: 'completed',
        outcome: last ? (status === 'failed' ? 'gate_failed' : 'success') : 'gate_failed',
        startedAt,
        endedAt: finishedAt,
        durationMs: 45_000,
        toolCalls: 10 + pick(i, 6, 30),
        costUsd: 0.1 + pick(i, 7, 200) / 100,
        cli: 'claude',
        changes: { files: paths.length, added: pick(i, 8, 400), deleted: pick(i, 9, 120), paths },
        ...(pick(i, 10, 9) === 0 ? { denials: 1 + pick(i, 11, 3) } : {}),
      });
    }
    const reviewed = pick(i, 12, 5);
    queue.push({
      id,
      title: `Fix the ${TOPICS[pick(i, 5, TOPICS.length)]} (${i})`,
      body: `Make the ${TOPICS[pick(i, 5, TOPICS.length)]} work as described in issue ${i}.`,
      priority: 0,
      dependsOn: [],
      vars: {},
      criteria: ['the tests pass', 'no new warnings'],
      status,
      attempts: sessionsPerItem,
      createdAt: new Date(start - 3_600_000).toISOString(),
      updatedAt: finishedAt,
      startedAt,
      finishedAt,
      sessions,
      costUsd: Math.round(sessionsPerItem * (0.1 + pick(i, 7, 200) / 100) * 100) / 100,
      lastOutcome:
        status === 'failed' ? 'gate_failed' : status === 'needs_input' ? 'needs_input' : 'success',
      ...(status === 'failed'
        ? {
            lastError: 'gate npm test: FAILED (exit 1)',
            gateFailure:
              '$ npm test\n\nAssertionError: expected 3 to be 4\n    at test/report.test.ts:12:5',
          }
        : {}),
      ...(status === 'needs_input'
        ? { question: 'Should the export keep the old column order?' }
        : {}),
      ...(status === 'awaiting_merge'
        ? {
            pullRequest: {
              number: i + 1,
              url: `http://127.0.0.1/pr/${i + 1}`,
              head: `ralph/${id}`,
              base: 'main',
              kind: 'item',
            },
          }
        : {}),
      ...(pick(i, 13, 6) === 0 ? { landRounds: 1 + pick(i, 14, 2) } : {}),
      ...(reviewed < 2
        ? {
            verdict: {
              overall: reviewed === 0 ? 'request_changes' : 'approve',
              criteria: [
                { id: 1, verdict: 'PASS', evidence: 'npm test passed' },
                {
                  id: 2,
                  verdict: reviewed === 0 ? 'FAIL' : 'PASS',
                  evidence: reviewed === 0 ? 'a new lint warning in src/report.ts' : 'none found',
                },
              ],
              findings:
                reviewed === 0
                  ? [
                      {
                        severity: 'major',
                        place: 'src/report.ts:40',
                        finding: 'the old column order is lost',
                      },
                    ]
                  : [],
              cli: 'codex',
              session: sessions[0],
              costUsd: 0.05,
              at: finishedAt,
            },
          }
        : {}),
    });
  }
  fs.writeFileSync(
    path.join(root, 'state', 'queue.json'),
    JSON.stringify({ schema: 9, version: 1, items: queue }),
  );
  fs.mkdirSync(path.join(root, 'docs', 'sessions'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'docs', 'sessions', 'index.jsonl'),
    index.map((e) => JSON.stringify(e)).join('\n') + '\n',
  );
  return { items: queue.length, sessions: index.length };
}
