import fs from 'node:fs';
import { PRIVATE_FILE_MODE } from '../lib/fs.js';
import { LIVE_ONLY, type Listener } from '../events/events.js';

const APPEND_FLAGS =
  fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW;

/**
 * The runner's JSON-lines log (`state/iteration.log`) as a subscriber of its events, rotated
 * past `maxBytes` keeping one old file. Writes are synchronous so entries keep their order and
 * survive a crash.
 */
export function logFile(file: string, maxBytes: number): Listener {
  let size: number | undefined;
  const rotateIfNeeded = (incoming: number) => {
    if (size === undefined) {
      try {
        size = fs.statSync(file).size;
      } catch {
        size = 0;
      }
    }
    if (size + incoming <= maxBytes || size === 0) return;
    fs.renameSync(file, `${file}.1`);
    size = 0;
  };
  return (entry) => {
    if (LIVE_ONLY.has(entry.event)) return;
    const line = `${JSON.stringify(entry)}\n`;
    try {
      rotateIfNeeded(Buffer.byteLength(line));
      const fd = fs.openSync(file, APPEND_FLAGS, PRIVATE_FILE_MODE);
      try {
        fs.writeSync(fd, line);
      } finally {
        fs.closeSync(fd);
      }
      size = (size ?? 0) + Buffer.byteLength(line);
    } catch {
      // The log is a convenience: a full disk must not stop the runner from settling items.
    }
  };
}
