import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { TEST_RUN_MARKER } from './leak-check.js';
import { sessionSurvivors } from './processes.js';
import { FAKE_CLAUDE, makeWorkspace, readSessions } from './workspace.js';

/** A workspace with the fake claude and short graces, for guard tests. */
export async function guardedWorkspace(config: Record<string, unknown> = {}, at?: string) {
  const root = await makeWorkspace(
    {
      run: {
        killGrace: '0.3s',
        afterResultGrace: '0.5s',
        failureBackoffCap: 0,
        maxConsecutiveFailures: 0,
        pollInterval: '0.5s',
        limitMargin: 0,
      },
      ...config,
      clis: { claude: { command: [FAKE_CLAUDE] }, ...(config.clis as object | undefined) },
    },
    at,
  );
  const env = {
    FAKE_CLAUDE_CALLS: path.join(root, 'calls.jsonl'),
    FAKE_CLAUDE_LEDGER: path.join(root, 'ledger.txt'),
    FAKE_CLAUDE_STATE: root,
    [TEST_RUN_MARKER]: process.env[TEST_RUN_MARKER] ?? '',
  };
  return { root, env };
}

/** Asserts that nothing of any session of the workspace is still alive. */
export async function expectNoSurvivors(root: string): Promise<void> {
  for (const record of readSessions(root)) {
    expect(
      await sessionSurvivors(String(record.sessionId), record.pid as number | undefined),
      String(record.itemId),
    ).toEqual([]);
  }
}

/** The events of a workspace's `state/iteration.log`. */
export function logEvents(root: string): { event: string; [key: string]: unknown }[] {
  const file = path.join(root, 'state', 'iteration.log');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { event: string });
}

/** The lines of the fake claude's side-effect ledger. */
export function ledger(root: string): string[] {
  const file = path.join(root, 'ledger.txt');
  return fs.existsSync(file)
    ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean)
    : [];
}

/** The argv of every fake claude call. */
export function calls(root: string): string[][] {
  const file = path.join(root, 'calls.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { argv: string[] }).argv);
}

/** Whether some session's stream has its first bytes (the fake has set its signal handlers). */
export function agentTalking(root: string): () => boolean {
  const sessions = path.join(root, 'docs', 'sessions');
  return () =>
    fs
      .readdirSync(sessions)
      .some((n) => n.endsWith('.ndjson') && fs.statSync(path.join(sessions, n)).size > 0);
}
