import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/lib/redact.js';
import { RunEvents } from '../../src/events/events.js';
import { logFile } from '../../src/runner/log.js';
import { tempDir } from '../support/workspace.js';

describe('state/iteration.log', () => {
  it('rotates past its size, keeping one old file, masks secrets and skips live-only events', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'iteration.log');
    const events = new RunEvents();
    events.subscribe(logFile(file, 1000));
    events.redactWith(new Redactor(['hunter2-secret']));
    for (let i = 0; i < 40; i++)
      events.info('state_recovered', { operation: `op ${i} ${'x'.repeat(50)} hunter2-secret` });
    events.info('session_progress', {
      item: 'a',
      itemTitle: 'a',
      session: 's',
      startedAt: new Date().toISOString(),
      queued: 0,
      toolCalls: 0,
    });
    expect(fs.statSync(file).size).toBeLessThanOrEqual(1000);
    expect(fs.statSync(`${file}.1`).size).toBeLessThanOrEqual(1000);
    expect(fs.readdirSync(dir).sort()).toEqual(['iteration.log', 'iteration.log.1']);
    const lines = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; operation: string });
    expect(lines.at(-1)).toMatchObject({ event: 'state_recovered' });
    expect(lines.at(-1)?.operation).toMatch(/^op 39 x+ \*\*\*$/);
    expect(fs.readFileSync(`${file}.1`, 'utf8')).not.toContain('hunter2');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });
});
