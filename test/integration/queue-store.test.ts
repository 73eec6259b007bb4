import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CorruptStateError } from '../../src/lib/errors.js';
import { ItemSchema } from '../../src/queue/item.js';
import { QueueStore } from '../../src/queue/store.js';
import { RALPH_BIN, makeWorkspace, readQueue, tempDir } from '../support/workspace.js';

const run = promisify(execFile);

describe('QueueStore', () => {
  it('loses no item when many processes add at once', async () => {
    const root = await makeWorkspace();
    const producers = 4;
    const each = 6;
    await Promise.all(
      Array.from({ length: producers }, (_, p) =>
        (async () => {
          for (let i = 0; i < each; i++) {
            await run(process.execPath, [
              RALPH_BIN,
              '-C',
              root,
              'add',
              `task ${p}-${i}`,
              '--id',
              `p${p}-i${i}`,
            ]);
          }
        })(),
      ),
    );
    const queue = readQueue(root);
    expect(queue.items).toHaveLength(producers * each);
    expect(new Set(queue.items.map((i) => i.id)).size).toBe(producers * each);
    expect(queue.version).toBe(producers * each);
    expect(fs.readdirSync(path.join(root, 'state')).filter((n) => n.endsWith('.lock'))).toEqual([]);
  });

  it('refuses a malformed file, names its position and leaves it byte-identical', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'queue.json');
    const text = '{\n  "version": 1,\n  "items": [\n    {"id": "a", "title": "x",}\n  ]\n}\n';
    fs.writeFileSync(file, text);
    const store = new QueueStore(file);
    const error = await store.update(() => ({ items: [], value: 1 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptStateError);
    expect(String((error as Error).message)).toMatch(
      new RegExp(`${file}: invalid JSON at line 4, column \\d+`),
    );
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  });

  it('names the item and the field of an invalid item', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'queue.json');
    const text = JSON.stringify({
      version: 1,
      items: [
        { id: 'ok', title: 'fine' },
        { id: 'bad-one', title: 'x', maxTurns: 'many' },
      ],
    });
    fs.writeFileSync(file, text);
    const error = (await new QueueStore(file).read().catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/item "bad-one" \(items\[1\]\)\.maxTurns/);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  });

  it('validates again a file someone else changed after ralph wrote it', async () => {
    const root = await makeWorkspace();
    await run(process.execPath, [RALPH_BIN, '-C', root, 'add', 'One', '--id', 'one']);
    const file = path.join(root, 'state', 'queue.json');
    const edited = fs.readFileSync(file, 'utf8').replace('"attempts": 0', '"attempts": "none"');
    fs.writeFileSync(file, edited);
    const error = (await new QueueStore(file).read().catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/item "one" \(items\[0\]\)\.attempts/);
    expect(fs.readFileSync(file, 'utf8')).toBe(edited);
  });

  it('reads a file caught half-written again before calling it malformed', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'queue.json');
    fs.writeFileSync(file, '{"version": 3, "items": [');
    const store = new QueueStore(file);
    const reading = store.read();
    fs.writeFileSync(file, JSON.stringify({ version: 3, items: [{ id: 'a', title: 'x' }] }));
    expect((await reading).items.map((i) => i.id)).toEqual(['a']);
  });

  it('never writes back a stale copy over a hand edit made under its lock', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'queue.json');
    fs.writeFileSync(file, JSON.stringify({ version: 1, items: [{ id: 'a', title: 'x' }] }));
    const store = new QueueStore(file);
    let rounds = 0;
    await store.update((items) => {
      rounds++;
      if (rounds === 1) {
        // A person saves the file by hand while the runner holds the lock.
        fs.writeFileSync(
          file,
          JSON.stringify({ version: 1, items: [...items, { id: 'by-hand', title: 'edited' }] }),
        );
      }
      return { items: [...items, ItemSchema.parse({ id: 'added', title: 'y' })], value: undefined };
    });
    expect(rounds).toBe(2);
    const queue = JSON.parse(fs.readFileSync(file, 'utf8')) as { items: { id: string }[] };
    expect(queue.items.map((i) => i.id)).toEqual(['a', 'by-hand', 'added']);
  });
});
