import type { Source } from '../queue/item.js';

/**
 * One piece of work as a source has it (a plan's checklist item, a story, an issue): what an
 * item is made of, and whether the source still asks for it.
 */
export interface SourceEntry {
  /** False: done or closed at the source (a checked box, a passing story, a closed issue). */
  open: boolean;
  /** A readable id for a new item, made unique when taken. */
  id: string;
  title: string;
  body: string;
  priority?: number;
  vars?: Record<string, string>;
  source: Source;
}

/** A source that could not be read, said with its file and line (or field). */
export class SourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceError';
  }
}
