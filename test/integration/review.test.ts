// The morning after: the review commands over workspaces built from sessions the real CLI
// recorded (replayed by the fake claude), checked as people read them and as --json.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { IndexEntrySchema } from '../../src/archive/index-entry.js';
import { SessionRecordSchema } from '../../src/archive/record.js';
import { logsCommand } from '../../src/cli/commands/logs.js';
import { guardedWorkspace } from '../support/guarded.js';
import { captureOutput } from '../support/output.js';
import { agentTalking } from '../support/guarded.js';
import { waitUntil } from '../support/wait.js';
import { RALPH_BIN, ralph, readQueue, readSessions } from '../support/workspace.js';

const TRANSCRIPTS = [
  'text',
  'partial-messages',
  'bash-tool',
  'permission-denied',
  'tool-disabled',
  'max-turns',
  'max-budget',
  'api-error-429',
  'api-retry-529',
  'auth-401',
  'credit-exhausted',
  'usage-limit-rejected',
];

let root = '';
let env: Record<string, string> = {};
const sessionOf = (item: string) => readSessions(root).find((r) => r.itemId === item)!;

beforeAll(async () => {
  ({ root, env } = await guardedWorkspace({
    run: { maxConsecutiveFailures: 0, failureBackoffCap: 0, limitMargin: 0 },
  }));
  // One item a run, added just before: the credit and auth failures pause the night (they are
  // resumed here) and give their item back, and the usage limit would wait an hour for its reset.
  const items: [string, string][] = [
    ...TRANSCRIPTS.map((name): [string, string] => [name, `replay file=${name}`]),
    ['odd', 'garbage'],
  ];
  for (const [id, behaviour] of items) {
    await ralph(
      root,
      ['add', `Replay ${id}`, '--id', id, '--body', `#behave: ${behaviour}`, '--max-attempts', '1'],
      env,
    );
    await ralph(root, ['resume']);
    await ralph(root, ['run', '--once'], env);
    if (readQueue(root).items.find((i) => i.id === id)?.status === 'pending')
      await ralph(root, ['cancel', id]);
  }
}, 120_000);

describe('ralph logs', () => {
  it.each(TRANSCRIPTS)('renders %s without a raw JSON dump', async (name) => {
    const { code, stdout } = await ralph(root, ['logs', name], env);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines.filter((l) => /^\s*[[{]"/.test(l))).toEqual([]);
    expect(lines[0]).toMatch(/^── ralph session [0-9a-f-]{36} · item /);
    expect(lines[1]).toMatch(/^── claude session [0-9a-f-]{36} · /);
    expect(stdout).toMatch(/═ result: /);
    // ralph's verdict closes the transcript: it is not the agent's result line.
    expect(stdout).toMatch(/═ ralph: \w+ · \w+: /);
  });

  it('shows each kind of event as people read it', async () => {
    const text = async (item: string) => (await ralph(root, ['logs', item], env)).stdout;
    expect(await text('text')).toMatch(
      /assistant: Hello from fake[\s\S]*═ result: success · \$0\.\d{4} · 1 turn ·[\s\S]*═ ralph: completed · success: /,
    );
    expect(await text('bash-tool')).toMatch(
      /→ Bash echo hi > made\.txt\n← Bash: \(Bash completed with no output\)/,
    );
    expect(await text('permission-denied')).toMatch(
      /✗ permission denied: Bash\n← Bash error: Permission to use Bash has been denied/,
    );
    expect(await text('permission-denied')).toMatch(/═ result: success · .* · denied: Bash/);
    // The CLI says "success"; ralph's verdict says what it was.
    expect(await text('permission-denied')).toMatch(
      /═ ralph: failed · permission_denied: .* · exit code 0/,
    );
    expect(await text('tool-disabled')).toMatch(
      /← Write error: <tool_use_error>Error: No such tool available: Write/,
    );
    expect(await text('max-turns')).toMatch(
      /═ result: error_max_turns \(error\)[\s\S]*Reached maximum number of turns/,
    );
    expect(await text('max-budget')).toMatch(
      /═ result: error_max_budget_usd \(error\)[\s\S]*Reached maximum budget/,
    );
    expect(await text('api-error-429')).toMatch(
      /claude \(synthetic\): API Error: Request rejected \(429\)[\s\S]*API error 429/,
    );
    expect(await text('api-retry-529')).toMatch(/↻ API retry 1\/2 after 529/);
    expect(await text('usage-limit-rejected')).toMatch(/⏸ usage limit rejected, resets 20\d\d-/);
    expect(await text('partial-messages')).toMatch(/· \d+ partial-message deltas/);
    const odd = await text('odd');
    expect(odd).toMatch(/! invalid json: not JSON: "this is not json"/);
    expect(odd).toMatch(/· brand_new_event\n/);
  });

  it('prints the archive as it is with --raw, and events with --json', async () => {
    const record = sessionOf('bash-tool');
    const raw = (await ralph(root, ['logs', 'bash-tool', '--raw'], env)).stdout;
    expect(raw).toBe(fs.readFileSync(String((record.files as { stdout: string }).stdout), 'utf8'));
    const events = (
      await ralph(root, ['logs', String(record.sessionId).slice(0, 8), '--json'], env)
    ).stdout
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string });
    expect(events.map((e) => e.kind)).toEqual([
      'init',
      'assistant',
      'tool_results',
      'assistant',
      'result',
    ]);
  });

  it('masks secrets of the environment when rendering', async () => {
    const { stdout } = await ralph(root, ['logs', 'text'], {
      ...env,
      LEAKY_TOKEN: 'Hello from fake',
    });
    expect(stdout).toContain('assistant: ***');
  });

  it('colours only on a terminal, and never with NO_COLOR', async () => {
    const colourful = captureOutput(true);
    await logsCommand(root, 'max-turns', {}, colourful, env);
    expect(colourful.stdout.join('\n')).toContain('\x1b[31m═ result: error_max_turns');
    const plain = captureOutput(true);
    await logsCommand(root, 'max-turns', {}, plain, { ...env, NO_COLOR: '1' });
    expect(plain.stdout.join('\n')).not.toContain('\x1b[');
    expect((await ralph(root, ['logs', 'max-turns'], env)).stdout).not.toContain('\x1b[');
  });

  it('names an unknown session', async () => {
    const result = await ralph(root, ['logs', 'nope'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no session or item matches "nope"');
  });
});

describe('ralph sessions, show and report', () => {
  it('lists every session newest first, filtered, and as JSON', async () => {
    const table = (await ralph(root, ['sessions'])).stdout.split('\n');
    expect(table[0]).toMatch(
      /^SESSION\s+STARTED\s+ITEM\s+OUTCOME\s+TIME\s+TURNS\s+TOOLS\s+COST\s+CLI$/,
    );
    expect(table).toHaveLength(readSessions(root).length + 1);
    const json = z
      .array(IndexEntrySchema)
      .parse(JSON.parse((await ralph(root, ['sessions', '--json'])).stdout));
    expect(json.map((e) => e.startedAt)).toEqual(
      [...json.map((e) => e.startedAt)].sort().reverse(),
    );
    const denied = z
      .array(IndexEntrySchema)
      .parse(
        JSON.parse(
          (await ralph(root, ['sessions', '--status', 'permission_denied', '--json'])).stdout,
        ),
      );
    expect(denied.map((e) => e.itemId).sort()).toEqual(['permission-denied', 'tool-disabled']);
    const one = JSON.parse(
      (await ralph(root, ['sessions', '--item', 'text', '--json', '--since', '1h'])).stdout,
    ) as unknown[];
    expect(one).toHaveLength(1);
    expect(
      JSON.parse((await ralph(root, ['sessions', '--json', '--since', '2099-01-01'])).stdout),
    ).toEqual([]);
  });

  it('shows a session: record, command, files, stderr and prompt', async () => {
    const { code, stdout } = await ralph(root, ['show', 'max-turns'], env);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Session [0-9a-f-]{36} — item max-turns "Replay max-turns"/);
    expect(stdout).toContain('Status:   failed (max_turns: reached the turn limit after 3 turns)');
    expect(stdout).toMatch(/Command \(secrets masked\):\n {2}\S+fake-claude\.mjs -p /);
    expect(stdout).toMatch(/stdout +\/.*\.ndjson/);
    expect(stdout).toContain('Appended system prompt:\n# Identity');
    const record = SessionRecordSchema.parse(
      JSON.parse((await ralph(root, ['show', 'max-turns', '--json'], env)).stdout),
    );
    expect(record.outcome?.kind).toBe('max_turns');
  });

  it('reports outcomes, cost and time per day and per item', async () => {
    const Group = z.object({
      key: z.string(),
      sessions: z.number(),
      succeeded: z.number(),
      asked: z.number(),
      failed: z.number(),
      interrupted: z.number(),
      costUsd: z.number(),
      seconds: z.number(),
      failures: z.array(
        z.object({ sessionId: z.string(), itemId: z.string(), outcome: z.string() }),
      ),
    });
    const report = z
      .object({ byDay: z.array(Group), byItem: z.array(Group) })
      .parse(JSON.parse((await ralph(root, ['report', '--json'])).stdout));
    const total = readSessions(root).length;
    expect(report.byDay.reduce((n, g) => n + g.sessions, 0)).toBe(total);
    expect(report.byItem.find((g) => g.key === 'text')).toMatchObject({
      sessions: 1,
      succeeded: 1,
      failed: 0,
    });
    expect(report.byItem.find((g) => g.key === 'max-turns')).toMatchObject({
      failed: 1,
      failures: [expect.objectContaining({ outcome: 'max_turns' })],
    });
    const text = (await ralph(root, ['report'])).stdout;
    expect(text).toMatch(
      /^DAY\s+SESSIONS\s+SUCCEEDED\s+ASKED\s+RETRIED\s+FAILED\s+INTERRUPTED\s+COST\s+BEFORE WORK\s+TIME\n\d{4}-\d\d-\d\d\s+\d+/m,
    );
    expect(text).toMatch(
      /Failures:\n[\s\S]*max-turns [0-9a-f-]{36}: max_turns — reached the turn limit/,
    );
  });
});

describe('queue maintenance', () => {
  it('retries, cancels and removes items under the lock', async () => {
    expect((await ralph(root, ['retry', 'max-turns'])).stdout).toBe('max-turns: pending');
    expect(readQueue(root).items.find((i) => i.id === 'max-turns')).toMatchObject({
      status: 'pending',
      attempts: 0,
    });
    expect((await ralph(root, ['cancel', 'max-turns'])).code).toBe(0);
    expect(readQueue(root).items.find((i) => i.id === 'max-turns')?.status).toBe('cancelled');
    expect((await ralph(root, ['rm', 'max-turns'])).code).toBe(0);
    expect(readQueue(root).items.some((i) => i.id === 'max-turns')).toBe(false);
    const missing = await ralph(root, ['rm', 'max-turns']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no item "max-turns" in the queue');
  });

  it('replays the command of a session with a fresh session id', async () => {
    const record = sessionOf('text');
    const { stdout } = await ralph(root, ['replay', 'text'], env);
    expect(stdout).toContain(
      `--append-system-prompt-file ${root}/docs/sessions/${String(record.sessionId)}-system.md`,
    );
    expect(stdout).toMatch(/--session-id [0-9a-f-]{36}/);
    expect(stdout).not.toContain(`--session-id ${String(record.sessionId)}`);
    // claude is given the same stream-json input again: its first prompt (and any message).
    expect(stdout).toContain(`< ${root}/docs/sessions/${String(record.sessionId)}-input.jsonl`);
    const executed = await ralph(root, ['replay', 'text', '--exec', '--yes'], env);
    expect(executed.code).toBe(0);
  });
});

describe('ralph logs --follow', () => {
  it('shows a live session as it goes and ends when the session ends', async () => {
    const { root: live, env: liveEnv } = await guardedWorkspace();
    const gate = path.join(live, 'gate');
    await ralph(
      live,
      ['add', 'Gated', '--id', 'gated', '--body', `#behave: gated gate=${gate}`],
      liveEnv,
    );
    const running = ralph(live, ['run', '--drain'], liveEnv);
    await waitUntil(path.join(live, 'docs', 'sessions'), agentTalking(live), 10_000, 'the agent');
    const follower = spawn(process.execPath, [RALPH_BIN, '-C', live, 'logs', 'gated', '--follow'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let seen = '';
    follower.stdout.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => follower.on('exit', resolve));
    await waitUntil(live, () => seen.includes('before the gate'), 10_000, 'the first events');
    expect(seen).not.toContain('after the gate');
    fs.writeFileSync(gate, '');
    expect(await exited).toBe(0);
    expect(seen).toMatch(/assistant: after the gate\n═ result: success/);
    expect((await running).code).toBe(0);
  });
});
