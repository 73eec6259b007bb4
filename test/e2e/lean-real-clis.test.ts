// `lean` with the real opencode and gemini CLIs against fakes of their model APIs: an item still
// does its work (a shell command its rules allow), and its first request leaves out the tools
// of an interactive session that the CLI's options can drop.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HARNESSES, type CliHarness } from '../support/agent-clis.js';
import { RUN } from '../support/cli-scenarios.js';
import { ralph, readQueue, tempDir } from '../support/workspace.js';

/** The names of the tools a request offers, in the CLI's API (chat completions, or Gemini). */
function toolNames(body: Record<string, unknown>): string[] {
  const tools = (body.tools ?? []) as {
    function?: { name: string };
    functionDeclarations?: { name: string }[];
  }[];
  return tools.flatMap((t) =>
    t.functionDeclarations !== undefined
      ? t.functionDeclarations.map((d) => d.name)
      : [t.function?.name ?? ''],
  );
}

/** What `lean` drops from each CLI's requests, and a tool both keep. */
const DROPPED: Record<string, { dropped: string[]; kept: string }> = {
  opencode: { dropped: ['todowrite', 'skill'], kept: 'bash' },
  gemini: { dropped: ['update_topic', 'enter_plan_mode'], kept: 'run_shell_command' },
};

for (const [name, { dropped, kept }] of Object.entries(DROPPED)) {
  const cli = HARNESSES.find((h) => h.name === name) as CliHarness;
  describe(`a lean session of the real ${name}`, { timeout: 180_000 }, () => {
    cli.closeAfterEach();

    it('does its task, its first request without the tools of an interactive session', async () => {
      const { root, env, api } = await cli.setup(
        (request) => {
          if (cli.toolOutput(request) !== undefined) return { kind: 'text', text: 'Done.' };
          const lean = cli.conversation(request).includes('Lean item');
          return { kind: 'shell', command: `echo done > ${lean ? 'lean' : 'full'}.txt` };
        },
        { run: RUN, ...(cli.prices ? { prices: cli.prices } : {}) },
      );
      const work = await tempDir('ralph-work-');
      for (const [title, id, lean] of [
        ['Full item', 'full', '--no-lean'],
        ['Lean item', 'lean', '--lean'],
      ] as const)
        expect(
          (await ralph(root, ['add', title, '--id', id, lean, '--work-dir', work], env)).code,
        ).toBe(0);
      const run = await ralph(root, ['run', '--drain'], env);
      expect(run.code, run.stderr).toBe(0);
      expect(readQueue(root).items.map((i) => [i.id, i.status])).toEqual([
        ['full', 'done'],
        ['lean', 'done'],
      ]);
      expect(fs.readFileSync(path.join(work, 'lean.txt'), 'utf8').trim()).toBe('done');
      // The first request of each session that offers tools, as the fake API saw it.
      const first = (title: string) =>
        api.requests.find((r) => {
          const body = r.body as Record<string, unknown>;
          return toolNames(body).length > 0 && cli.conversation(r).includes(title);
        })!;
      const full = toolNames(first('Full item').body);
      const lean = toolNames(first('Lean item').body);
      expect(full).toEqual(expect.arrayContaining([...dropped, kept]));
      expect(lean).toContain(kept);
      for (const tool of dropped) expect(lean).not.toContain(tool);
      // The web tools no rule allows are offered to neither.
      for (const tools of [full, lean])
        for (const tool of ['google_web_search', 'web_fetch', 'webfetch', 'websearch'])
          expect(tools).not.toContain(tool);
    });
  });
}
