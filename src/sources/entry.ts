import type { Source } from '../queue/item.js';

/**
 * One piece of work as a source has it (a plan's checklist item, a story, an issue): what an
 * item is made of, and whether the source still asks for it.
 */
export interface SourceEntry {
  /**
   * What the source says of it: still asked for; `done` (a checked box, a passing story, an
   * issue closed as completed), which counts as done for what depends on it; or `dropped` (an
   * issue closed as not planned), which cancels it.
   */
  state: 'open' | 'done' | 'dropped';
  /** A readable id for a new item, made unique when taken. */
  id: string;
  title: string;
  body: string;
  priority?: number;
  /** What must hold for it to be done: a story's acceptance criteria, a task's plain sub-bullets. */
  criteria?: string[];
  vars?: Record<string, string>;
  /**
   * The source keys of the entries it waits for (a Linear issue's sub-issues and blockers): the
   * items made of them, new or imported before, are its dependencies.
   */
  after?: string[];
  source: Source;
  /** Why a new item is not to be made of it (its author is not trusted), if so. */
  skip?: string;
}

/** A source that could not be read, said with its file and line (or field). */
export class SourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceError';
  }
}
