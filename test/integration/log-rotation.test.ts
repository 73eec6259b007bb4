import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunLog } from '../../src/runner/log.js';
import { tempDir } from '../support/workspace.js';

describe('state/iteration.log', () => {
  it('rotates past its size, keeping one old file, and masks secrets', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'iteration.log');
    const log = new RunLog(file, 1000);
    log.addSecrets(['hunter2-secret']);
    for (let i = 0; i < 40; i++)
      log.info('tick', { i, note: 'x'.repeat(50), secret: 'hunter2-secret' });
    expect(fs.statSync(file).size).toBeLessThanOrEqual(1000);
    expect(fs.statSync(`${file}.1`).size).toBeLessThanOrEqual(1000);
    expect(fs.readdirSync(dir).sort()).toEqual(['iteration.log', 'iteration.log.1']);
    const lines = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { i: number; secret: string });
    expect(lines.at(-1)).toMatchObject({ i: 39, secret: '***' });
    expect(fs.readFileSync(`${file}.1`, 'utf8')).not.toContain('hunter2');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });
});
