// An operation that finds the queue broken pauses the night until a person repairs it and
// resumes. Two operations may find it so at once (a settle, the lander): the person answers the
// first pause while the second is being made, which must not leave the night paused for good.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/config/workspace.js';
import { ControlFiles } from '../../src/control/files.js';
import { CorruptStateError } from '../../src/lib/errors.js';
import type { RunnerContext } from '../../src/runner/context.js';
import { persistently } from '../../src/runner/persist.js';
import { StopControl } from '../../src/runner/stop-control.js';
import { ralph, tempDir } from '../support/workspace.js';

/** What `persistently` uses of a runner, over a real workspace; the queue reads as `reads` says. */
async function context(reads: () => boolean) {
  const root = await tempDir('ralph-persist-');
  expect((await ralph(root, ['init'])).code).toBe(0);
  const workspace = await loadWorkspace(root);
  const queueFile = workspace.paths.queue;
  const events: string[] = [];
  // How often the operation has waited: each wait follows a look at the pause.
  let waits = 0;
  const ctx = {
    workspace,
    controlFiles: new ControlFiles(workspace.paths),
    redactor: { redact: (text: string) => text },
    events: {
      info: (event: string) => events.push(event),
      warn: (event: string) => events.push(event),
      error: (event: string) => events.push(event),
    },
    clock: { now: () => Date.now() },
    onWedged: () => undefined,
    wait: ({ ms, signal }: { ms: number; signal?: AbortSignal }) =>
      new Promise<void>((resolve) => {
        waits++;
        const timer = setTimeout(resolve, Math.min(ms, 20));
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      }),
    queue: {
      where: queueFile,
      quarantine: () => Promise.resolve({}),
      list: () => (reads() ? Promise.resolve([]) : Promise.reject(new Error('broken'))),
    },
  } as unknown as RunnerContext;
  return { ctx, events, interrupt: workspace.paths.interruptFile, queueFile, waits: () => waits };
}

describe('an operation that finds the queue broken', () => {
  it('takes back its pause when the queue was repaired and the night resumed while it paused', async () => {
    // The queue is broken when the operation reads it, and repaired (the other pause answered)
    // by the time its own pause is written.
    let tries = 0;
    const { ctx, events, interrupt, queueFile } = await context(() => tries > 0);
    const control = new StopControl();
    const settled = await persistently(ctx, control, 'settling item g', () => {
      if (tries++ === 0)
        return Promise.reject(new CorruptStateError(`${queueFile}: invalid JSON`, queueFile));
      return Promise.resolve('settled');
    });
    expect(settled).toBe('settled');
    expect(fs.existsSync(interrupt)).toBe(false);
    expect(events).toEqual(['queue_quarantined', 'pausing', 'state_recovered']);
  });

  it('stays paused while the queue is still broken, and leaves a pause of a person alone', async () => {
    let repaired = false;
    const { ctx, interrupt, queueFile, waits } = await context(() => repaired);
    const control = new StopControl();
    let tries = 0;
    const settling = persistently(ctx, control, 'settling item g', () =>
      tries++ === 0 || !repaired
        ? Promise.reject(new CorruptStateError(`${queueFile}: invalid JSON`, queueFile))
        : Promise.resolve('settled'),
    );
    await expect.poll(() => fs.existsSync(interrupt)).toBe(true);
    expect(fs.readFileSync(interrupt, 'utf8')).toMatch(/settling item g failed/);
    // A person's own pause replaces it; the queue repaired, that pause is theirs to lift.
    fs.writeFileSync(interrupt, 'a person: hold on\n');
    repaired = true;
    // The operation has looked at the pause twice since, and left the person's alone.
    const looked = waits();
    await expect.poll(() => waits() >= looked + 2).toBe(true);
    expect(fs.readFileSync(interrupt, 'utf8')).toBe('a person: hold on\n');
    fs.rmSync(interrupt);
    expect(await settling).toBe('settled');
  });
});
