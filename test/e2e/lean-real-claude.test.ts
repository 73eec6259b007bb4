// `lean` with the real claude CLI against the fake Anthropic API: the item still does its work
// (a file written through a tool its rules allow), and its first request is the smaller one.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../support/fake-anthropic.js';
import { closeFakeApiAfterEach, realClaudeWorkspace } from '../support/real-claude.js';
import { runFullAndLean } from '../support/lean.js';
import { readSessions } from '../support/workspace.js';

closeFakeApiAfterEach();

const toolNames = (request: RecordedRequest) =>
  ((request.body as { tools?: { name: string }[] }).tools ?? []).map((t) => t.name);

describe('a lean session of the real claude', { timeout: 180_000 }, () => {
  it('does its task with the tools its rules allow, its first request smaller by a third or more', async () => {
    const { root, env, api } = await realClaudeWorkspace((request) => {
      const text = JSON.stringify(request.body.messages ?? []);
      if (text.includes('tool_result')) return { kind: 'text', text: 'Wrote it.' };
      const lean = JSON.stringify(request.body).includes('Lean item');
      return {
        kind: 'tool_use',
        name: 'Write',
        input: { file_path: lean ? 'lean.txt' : 'full.txt', content: 'done\n' },
      };
    });
    const work = path.join(root, 'work');
    fs.mkdirSync(work);
    await runFullAndLean(root, env, 'work');
    expect(fs.readFileSync(path.join(work, 'lean.txt'), 'utf8')).toBe('done\n');
    const lean = readSessions(root).find((s) => s.itemId === 'lean');
    expect(lean?.command).toEqual(
      expect.arrayContaining([
        '--tools',
        '--exclude-dynamic-system-prompt-sections',
        '--strict-mcp-config',
      ]),
    );
    // The first model request of each session, as the fake API saw it.
    const first = (title: string) =>
      api.requests.find(
        (r) =>
          r.url.startsWith('/v1/messages') &&
          JSON.stringify(r.body).includes(title) &&
          !JSON.stringify(r.body.messages ?? []).includes('tool_result'),
      )!;
    const full = first('Full item');
    const trimmed = first('Lean item');
    expect(toolNames(trimmed).sort()).toEqual(
      expect.arrayContaining(['Agent', 'Bash', 'Edit', 'Read', 'Write']),
    );
    for (const name of ['Skill', 'ToolSearch', 'ScheduleWakeup', 'Workflow'])
      expect(toolNames(trimmed)).not.toContain(name);
    // The built-in allowlist's Glob and Grep would make claude add them (its Bash searches): a
    // session is offered the tools a bare claude -p is, lean or not.
    for (const request of [full, trimmed])
      for (const name of ['Glob', 'Grep']) expect(toolNames(request)).not.toContain(name);
    const bytes = (r: RecordedRequest) => JSON.stringify(r.body).length;
    expect(bytes(trimmed)).toBeLessThan(bytes(full) * 0.7);
    // claude's own git instructions (its commit and pull-request attribution, the session's git
    // status) are left out of a lean session's requests; ralph's standing instructions say what
    // its commits are to be.
    for (const marker of ['# gitStatus', 'Attribution for git commits']) {
      expect(JSON.stringify(full.body)).toContain(marker);
      expect(JSON.stringify(trimmed.body)).not.toContain(marker);
    }
    expect(JSON.stringify(trimmed.body)).toContain('never push,');
  });
});
