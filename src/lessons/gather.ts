import type { Item } from '../queue/item.js';
import { standingLines, type LedgerLine } from '../queue/ledger.js';
import { fromUntrusted } from '../prompt/task-text.js';
import { nextId, type Lesson, type LessonKind, type LessonsState } from './state.js';

// Lessons gathered: each from one thing that happened (a person's decision, a review, a gate, a
// landing, a setup), kept once by its key with the evidence it rests on.

/** A lesson as found, before it is given an id. */
export type Found = Omit<Lesson, 'id' | 'proposal'>;

/** The text of an item that a person's decision or a review is about, when it is not trusted. */
const untrustedOf = (item: Item | undefined): string | undefined =>
  item !== undefined && fromUntrusted(item) && (item.body ?? '').trim() !== ''
    ? item.body
    : undefined;

/**
 * The lessons of the person's decisions: each rejection with its note, and each acceptance over
 * its reviewer's requested changes or failed criteria (the findings were not a problem).
 */
export function lessonsOfLedger(lines: readonly LedgerLine[], items: readonly Item[]): Found[] {
  const byId = new Map(items.map((item) => [item.id, item]));
  const found: Found[] = [];
  for (const line of standingLines(lines)) {
    const item = byId.get(line.item);
    const of = (kind: LessonKind, text: string): Found => {
      const untrusted = untrustedOf(item);
      return {
        key: `decision:${line.id}`,
        kind,
        text,
        items: [line.item],
        decisions: [line.id],
        sessions: item?.sessions.slice(-3) ?? [],
        ...(untrusted === undefined ? {} : { untrusted }),
        ...(line.change === undefined ? {} : { change: line.change }),
        at: line.at,
      };
    };
    if (line.decision === 'rejected' && (line.note ?? '').trim() !== '')
      found.push(of('rejection', line.note!.trim()));
    const dismissed = line.decision === 'accepted' && (line.findings ?? []).length > 0;
    if (dismissed) found.push(of('dismissed', line.findings!.join('\n')));
  }
  return found;
}

/** A gate's failure, seen on one item: the lesson it makes once it has failed on two. */
export function gateFailed(
  state: LessonsState,
  failure: { gate: string; item: string; session: string; tail: string; at: string },
): Found | undefined {
  const seen = state.gateFailures[failure.gate] ?? { items: [], sessions: [], tail: '' };
  const items = seen.items.includes(failure.item) ? seen.items : [...seen.items, failure.item];
  const sessions = [...seen.sessions, failure.session].slice(-5);
  state.gateFailures[failure.gate] = { items, sessions, tail: failure.tail };
  if (items.length < 2) return undefined;
  return {
    key: `gate:${failure.gate}:${items.length}`,
    kind: 'gate',
    text: `The gate "${failure.gate}" failed on ${items.length} items (${items.join(', ')}); the end of its last output:\n${failure.tail}`,
    items,
    decisions: [],
    sessions,
    at: failure.at,
  };
}

/**
 * Adds the lessons found that the state lacks (by key), each given the next id; the ones added.
 * A gate's lesson not yet proposed is replaced by the one that counts more items.
 */
export function addLessons(state: LessonsState, found: readonly Found[]): Lesson[] {
  const added: Lesson[] = [];
  for (const lesson of found) {
    if (state.lessons.some((l) => l.key === lesson.key)) continue;
    if (lesson.kind === 'gate') {
      const prefix = lesson.key.slice(0, lesson.key.lastIndexOf(':') + 1);
      state.lessons = state.lessons.filter(
        (l) => !(l.key.startsWith(prefix) && l.proposal === undefined),
      );
    }
    const made: Lesson = { ...lesson, id: nextId('L', state.lessons) };
    state.lessons.push(made);
    added.push(made);
  }
  return added;
}
