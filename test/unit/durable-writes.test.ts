// A state file is flushed to disk before it replaces the old one only where a machine crash
// would lose something: the queue is; the digest beside it, a running session's record and the
// configuration's cache are not (each flush costs the thread pool a round trip and the disk a
// write, several times an item).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SessionRecord } from '../../src/archive/record.js';
import { loadWorkspace } from '../../src/config/workspace.js';
import { ControlFiles } from '../../src/control/files.js';
import { QueueStore } from '../../src/queue/store.js';
import { queueItem } from '../support/items.js';
import { makeWorkspace } from '../support/workspace.js';

/** The files flushed while `write` runs, by name (a temp file as the file it becomes). */
async function flushedBy(write: () => Promise<unknown>): Promise<string[]> {
  const flushed: string[] = [];
  const fsync = fs.fsync.bind(fs);
  vi.spyOn(fs, 'fsync').mockImplementation((fd, callback) => {
    const file = path.basename(fs.readlinkSync(`/proc/self/fd/${fd}`));
    flushed.push(file.replace(/\.\d+\.\d+\.tmp$/, ''));
    fsync(fd, callback);
  });
  await write();
  return flushed;
}

async function workspace() {
  return (await loadWorkspace(await makeWorkspace())).paths;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('what a write flushes to disk', () => {
  it('flushes the queue, not its digest', async () => {
    const paths = await workspace();
    const store = new QueueStore(paths.queue);
    const flushed = await flushedBy(() =>
      store.update(() => ({ items: [queueItem('a')], value: undefined })),
    );
    expect(flushed).toEqual(['queue.json']);
    expect(fs.readFileSync(path.join(paths.state, '.queue.json.sha1'), 'utf8')).toMatch(
      /^[0-9a-f]{40}$/,
    );
    // The digest still spares the next read its validation.
    expect((await store.read()).items.map((i) => i.id)).toEqual(['a']);
  });

  it("does not flush the configuration's cache", async () => {
    const paths = await workspace();
    const cache = path.join(paths.state, '.config-cache.json');
    fs.rmSync(cache, { force: true });
    expect(await flushedBy(() => loadWorkspace(paths.root))).toEqual([]);
    expect(fs.existsSync(cache)).toBe(true);
  });

  it("does not flush a running session's record", async () => {
    const paths = await workspace();
    const record = { sessionId: 's-1', itemId: 'a', status: 'running' } as SessionRecord;
    const flushed = await flushedBy(() => new ControlFiles(paths).writeRunningSession(record));
    expect(flushed).toEqual([]);
    expect(JSON.parse(fs.readFileSync(path.join(paths.running, 's-1.json'), 'utf8'))).toEqual(
      record,
    );
  });
});
