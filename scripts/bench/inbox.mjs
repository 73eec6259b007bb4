// `ralph review --list` over a night of 10,000 archived sessions (issue "the morning's
// decisions"): the queue and the index are read, no record, no git; timed against `ralph ls` on
// the same workspace in the same run.
import fs from 'node:fs';
import { writeReviewNight } from '../review-night.mjs';
import { BIN, elapsed, run, stats, workspace } from './lib.mjs';

export async function inboxAtScale({ sessions, runs }) {
  const root = workspace(['true']);
  // Four sessions an item: the index is four times the queue, as after a night of retries.
  writeReviewNight(root, { items: sessions / 4, sessionsPerItem: 4 });
  const listing = [];
  const inbox = [];
  for (let r = 0; r < runs; r++) {
    listing.push(await elapsed(() => run(process.execPath, [BIN, '-C', root, 'ls'])));
    inbox.push(await elapsed(() => run(process.execPath, [BIN, '-C', root, 'review', '--list'])));
  }
  fs.rmSync(root, { recursive: true, force: true });
  const l = stats(listing);
  const i = stats(inbox);
  return [
    {
      name: `ralph review, ${sessions} sessions of ${sessions / 4} items`,
      value: i.median / 1000,
      unit: 's',
      measure: 'absolute',
      target: '< 1',
      ok: i.median < 1000,
      detail: `${i.median.toFixed(0)} ms (min ${i.min.toFixed(0)}, max ${i.max.toFixed(0)})`,
    },
    {
      name: 'ralph review against ralph ls, same workspace',
      value: i.median / l.median,
      unit: 'x',
      measure: 'ratio',
      target: 'reported',
      ok: true,
      detail: `${i.median.toFixed(0)} ms against ${l.median.toFixed(0)} ms for ralph ls`,
    },
  ];
}
