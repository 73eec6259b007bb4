import fsp from 'node:fs/promises';
import { isErrnoException } from './errors.js';

/**
 * Reads files once and again only when their mtime (or size) changes, so personas and project
 * context are not re-read for every item of a long night, yet an edit shows up on the next one.
 */
export class FileCache {
  private readonly entries = new Map<string, { mtimeMs: number; size: number; text: string }>();

  /** The file's text, or undefined when it does not exist. */
  async read(file: string): Promise<string | undefined> {
    let stat;
    try {
      stat = await fsp.stat(file);
    } catch (error) {
      if (isErrnoException(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) {
        this.entries.delete(file);
        return undefined;
      }
      throw error;
    }
    const cached = this.entries.get(file);
    if (cached !== undefined && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size)
      return cached.text;
    const text = await fsp.readFile(file, 'utf8');
    this.entries.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, text });
    return text;
  }
}
