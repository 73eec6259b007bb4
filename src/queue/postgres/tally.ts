import type { ItemDecision } from '../item.js';
import { holderOf, statusIs, type ItemStatus } from '../item-status.js';
import type { QueueTally } from '../queue.js';
import { decidingWhy } from '../tally.js';
import type { Db } from './items-table.js';
import { statusesSql } from './status-sql.js';

const IN_SESSION = statusesSql((s) => holderOf(s) === 'worker');
const PULL_REQUEST_OPEN = statusesSql((s) => statusIs(s, 'pullRequestOpen'));
const ASKS_PERSON = statusesSql((s) => statusIs(s, 'asksPerson'));
const DECIDING = statusesSql((s) => holderOf(s) === 'decider');
const REVIEWING = statusesSql((s) => holderOf(s) === 'reviewer');

/** What `status` tells of the queue `name`, read in one go (`tally` of the file queue's). */
export async function tallyOf(db: Db, name: string): Promise<QueueTally> {
  const [counts, running, version, landedOn, refused, pulls, questions, stalled] =
    await Promise.all([
      db.query<{ status: ItemStatus; count: string }>(
        'SELECT status, count(*) AS count FROM ralph_items WHERE queue = $1 GROUP BY status',
        [name],
      ),
      db.query<{ id: string; branch: string }>(
        `SELECT id, doc->>'branch' AS branch FROM ralph_items
          WHERE queue = $1 AND status IN (${IN_SESSION}) AND doc ? 'branch'`,
        [name],
      ),
      db.query<{ version: string }>('SELECT last_value AS version FROM ralph_changes'),
      db.query<{ target: string; landed: string; commit: string }>(
        `SELECT doc->>'landedOn' AS target, count(*) AS landed,
              (array_agg(doc->>'landedCommit' ORDER BY doc->>'landedAt' DESC NULLS LAST))[1] AS commit
         FROM ralph_items WHERE queue = $1 AND doc ? 'landedOn' AND doc ? 'landedCommit'
        GROUP BY 1 ORDER BY 1`,
        [name],
      ),
      db.query<{ id: string; status: ItemStatus; error: string | null }>(
        `SELECT id, status, doc->>'lastError' AS error FROM ralph_items
        WHERE queue = $1 AND doc ? 'landFailure' ORDER BY id`,
        [name],
      ),
      db.query<{
        id: string;
        status: ItemStatus;
        pr: { number: number; url: string; forge?: 'gitlab' };
        checks: string | null;
      }>(
        `SELECT id, status, doc->'pullRequest' AS pr, doc->>'checks' AS checks FROM ralph_items
        WHERE queue = $1 AND doc ? 'pullRequest' AND status IN (${PULL_REQUEST_OPEN})
        ORDER BY (doc->'pullRequest'->>'number')::int`,
        [name],
      ),
      db.query<{ id: string; question: string | null }>(
        `SELECT id, doc->>'question' AS question FROM ralph_items
        WHERE queue = $1 AND status IN (${ASKS_PERSON}) ORDER BY id`,
        [name],
      ),
      db.query<{
        id: string;
        status: ItemStatus;
        unreviewed: string | null;
        decision: ItemDecision | null;
      }>(
        `SELECT id, status, doc->>'unreviewed' AS unreviewed, doc->'decision' AS decision
         FROM ralph_items
        WHERE queue = $1
          AND (status IN (${DECIDING}) OR (status IN (${REVIEWING}) AND doc ? 'unreviewed'))
        ORDER BY id`,
        [name],
      ),
    ]);
  return {
    counts: Object.fromEntries(counts.rows.map((r) => [r.status, Number(r.count)])),
    version: Number(version.rows[0]?.version ?? 0),
    branches: Object.fromEntries(running.rows.map((r) => [r.id, r.branch])),
    landings: {
      targets: landedOn.rows.map((r) => ({
        target: r.target,
        landed: Number(r.landed),
        commit: r.commit,
      })),
      refused: refused.rows.map((r) => ({ id: r.id, status: r.status, error: r.error ?? '' })),
    },
    pullRequests: pulls.rows.map((r) => ({
      id: r.id,
      number: r.pr.number,
      url: r.pr.url,
      status: r.status,
      ...(r.checks === null ? {} : { checks: r.checks }),
      ...(r.pr.forge === undefined ? {} : { forge: r.pr.forge }),
    })),
    questions: questions.rows.map((r) => ({ id: r.id, question: r.question ?? '' })),
    stalled: stalled.rows.map((r) => ({
      id: r.id,
      status: r.status,
      why:
        holderOf(r.status) === 'reviewer'
          ? (r.unreviewed ?? '')
          : decidingWhy({ decision: r.decision ?? undefined }),
    })),
  };
}
