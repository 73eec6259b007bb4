// One night, five agent CLIs: claude, codex, gemini, opencode and pi items (by flag, by persona, by default)
// in one queue, each its real binary against the suite's fake APIs, two workers.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeEnv, startFakeAnthropic } from '../support/fake-anthropic.js';
import { fakeApisClosedAfterEach } from '../support/fake-apis.js';
import { startFakeGemini } from '../support/fake-gemini.js';
import { startFakeOpenAi } from '../support/fake-openai.js';
import { OPENAI_TEST_KEY, codexCommand } from '../support/real-codex.js';
import { geminiCommand, geminiEnv } from '../support/real-gemini.js';
import { REAL_OPENCODE, opencodeEnv } from '../support/real-opencode.js';
import { PI_TOOLS, REAL_PI, piEnv } from '../support/real-pi.js';
import {
  REAL_CLAUDE,
  makeWorkspace,
  ralph,
  readQueue,
  readSessions,
} from '../support/workspace.js';

const apis = fakeApisClosedAfterEach();

describe('a queue mixing claude, codex, gemini, opencode and pi items', () => {
  it('runs them all in one night, and every review command shows each', async () => {
    const anthropic = await startFakeAnthropic(() => ({ kind: 'text', text: 'Done by claude.' }));
    apis.anthropic = anthropic;
    const openai = await startFakeOpenAi((request) => ({
      kind: 'text',
      text:
        request.api === 'responses'
          ? 'Done by codex.'
          : JSON.stringify(request.body).includes('on-pi')
            ? 'Done by pi.'
            : 'Done by opencode.',
    }));
    apis.openai = openai;
    const google = await startFakeGemini(() => ({ kind: 'text', text: 'Done by gemini.' }));
    apis.google = google;
    const root = await makeWorkspace({
      clis: {
        claude: { command: [REAL_CLAUDE] },
        codex: { command: codexCommand(openai) },
        gemini: { command: geminiCommand() },
        opencode: { command: [REAL_OPENCODE] },
        pi: { command: [REAL_PI] },
      },
      prices: { codex: { input: 2, output: 8 } },
    });
    // One HOME for all three: gemini's settings in it, claude's and codex's state beside them.
    const geminiVars = await geminiEnv(google);
    const piVars = await piEnv(openai);
    // pi's configuration, made in a HOME of its own, moves into the shared one.
    fs.cpSync(path.join(piVars.HOME!, '.pi'), path.join(geminiVars.HOME!, '.pi'), {
      recursive: true,
    });
    const env = {
      ...claudeEnv(anthropic, geminiVars.HOME!),
      ...geminiVars,
      ...(await opencodeEnv(openai)),
      HOME: geminiVars.HOME!,
      OPENAI_API_KEY: OPENAI_TEST_KEY,
    };
    fs.writeFileSync(path.join(root, 'agents', 'AGENT_coder.md'), '---\ncli: codex\n---\nCode.\n');
    for (const args of [
      ['On claude', '--id', 'by-default'],
      ['On codex', '--id', 'by-flag', '--cli', 'codex'],
      ['On codex too', '--id', 'by-persona', '--agent', 'coder'],
      ['On gemini', '--id', 'on-gemini', '--cli', 'gemini'],
      ['On opencode', '--id', 'on-opencode', '--cli', 'opencode'],
      // pi has no path rules: its items give rules without them.
      ['On pi', '--id', 'on-pi', '--cli', 'pi', '--allowed-tools', PI_TOOLS.join(',')],
    ])
      expect((await ralph(root, ['add', ...args], env)).code).toBe(0);
    const dry = await ralph(root, ['run', '--dry-run'], env);
    expect(dry.stdout).toMatch(/^# by-flag \(On codex\) on codex in /m);
    expect(dry.stdout).toMatch(/codex .* exec --json .* - < .*-prompt\.md$/m);

    const run = await ralph(root, ['run', '--drain', '--workers', '2'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(
      readQueue(root).items.map((i) => i.status),
      run.stdout + run.stderr,
    ).toEqual(Array(6).fill('done'));
    const byItem = new Map(readSessions(root).map((r) => [r.itemId, r]));
    expect(byItem.get('by-default')).toMatchObject({ cli: 'claude', outcome: { kind: 'success' } });
    expect(byItem.get('by-flag')).toMatchObject({ cli: 'codex', outcome: { kind: 'success' } });
    expect(byItem.get('by-persona')).toMatchObject({ cli: 'codex', persona: 'coder' });
    expect(byItem.get('on-gemini')).toMatchObject({ cli: 'gemini', outcome: { kind: 'success' } });
    expect(byItem.get('on-opencode')).toMatchObject({
      cli: 'opencode',
      outcome: { kind: 'success' },
    });
    expect(openai.requests.filter((r) => r.api === 'responses')).toHaveLength(2);
    expect(byItem.get('on-pi')).toMatchObject({ cli: 'pi', outcome: { kind: 'success' } });
    expect(openai.requests.filter((r) => r.api === 'chat')).toHaveLength(2);
    expect(google.requests).toHaveLength(1);

    const sessions = (await ralph(root, ['sessions'], env)).stdout;
    expect(sessions).toMatch(/by-default .* \$\d+\.\d{4} +claude$/m);
    // 1000 input and 100 output tokens at $2 and $8 per million.
    expect(sessions).toMatch(/by-flag .* ~\$0\.0028 +codex$/m);
    const report = await ralph(root, ['report', '--json'], env);
    const { byCli } = JSON.parse(report.stdout) as {
      byCli: { key: string; succeeded: number }[];
    };
    expect(byCli.map((g) => [g.key, g.succeeded])).toEqual([
      ['claude', 1],
      ['codex', 2],
      ['gemini', 1],
      ['opencode', 1],
      ['pi', 1],
    ]);
    expect((await ralph(root, ['report'], env)).stdout).toMatch(/^CLI +SESSIONS/m);
    const show = (await ralph(root, ['show', 'by-flag'], env)).stdout;
    expect(show).toMatch(/^Agent: +codex, session [0-9a-f-]{36}/m);
    expect(show).toContain('~$0.0028 (estimated from its tokens)');
    const logs = (await ralph(root, ['logs', 'by-persona'], env)).stdout;
    expect(logs).toMatch(/── codex session [0-9a-f-]{36}/);
    expect(logs).toContain('Done by codex.');
    expect((await ralph(root, ['logs', 'by-default'], env)).stdout).toContain('Done by claude.');
    expect((await ralph(root, ['logs', 'on-opencode'], env)).stdout).toContain('Done by opencode.');
    expect((await ralph(root, ['logs', 'on-pi'], env)).stdout).toContain('Done by pi.');
    const geminiLogs = (await ralph(root, ['logs', 'on-gemini'], env)).stdout;
    expect(geminiLogs).toMatch(/── gemini session [0-9a-f-]{36}/);
    expect(geminiLogs).toContain('Done by gemini.');
    // Six real CLIs start here, opencode's and gemini's in seconds each on a quiet machine: the
    // test waits on their ends, with a cap for a loaded two-core machine rather than the default.
  }, 240_000);
});
