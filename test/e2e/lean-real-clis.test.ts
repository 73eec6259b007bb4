// `lean` with the real codex, opencode and gemini CLIs against fakes of their model APIs: an
// item still does its work (a shell command its rules allow), and its first request leaves out
// the tools of an interactive session that the CLI's options can drop.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HARNESSES, type CliHarness } from '../support/agent-clis.js';
import { RUN } from '../support/cli-scenarios.js';
import { runFullAndLean } from '../support/lean.js';
import { tempDir } from '../support/workspace.js';

/** A tool as each CLI's API names it in a request: its name, or a heading of its description. */
const named = (tool: string) => [`"name":"${tool}"`, `### \`${tool}\``];

/** What `lean` drops from each CLI's requests, and a tool both keep. */
const DROPPED: Record<string, { dropped: string[]; kept: string }> = {
  codex: { dropped: ['create_goal', 'sleep'], kept: 'exec' },
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
      await runFullAndLean(root, env, work);
      expect(fs.readFileSync(path.join(work, 'lean.txt'), 'utf8').trim()).toBe('done');
      // The first request of each session that offers tools, as the fake API saw it.
      const offers = (text: string, tool: string) => named(tool).some((n) => text.includes(n));
      const first = (title: string) =>
        JSON.stringify(
          api.requests.find(
            (r) => offers(JSON.stringify(r.body), kept) && cli.conversation(r).includes(title),
          )?.body,
        );
      const full = first('Full item');
      const lean = first('Lean item');
      for (const tool of dropped) {
        expect(offers(full, tool), tool).toBe(true);
        expect(offers(lean, tool), tool).toBe(false);
      }
      // The web tools no rule allows are offered to neither.
      for (const text of [full, lean])
        for (const tool of ['google_web_search', 'web_fetch', 'webfetch', 'websearch'])
          expect(offers(text, tool), tool).toBe(false);
    });
  });
}
