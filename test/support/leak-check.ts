// Global setup: marks every process the test run starts (through the environment, which ralph
// passes on to its agents and they to their tools) and fails the run if any of them is still
// alive when it ends, after killing it: a test must leave no process behind.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { findSessionProcesses } from '../../src/lib/procfs.js';

/** The variable that marks the processes of one test run. */
export const TEST_RUN_MARKER = 'RALPH_TEST_RUN';

/** The processes carrying `name=value`, but for this process and the test runner's own. */
export async function markedSurvivors(name: string, value: string): Promise<string[]> {
  const pids = await findSessionProcesses(undefined, { name, value });
  const described = pids.map((pid) => {
    let cmdline = '';
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      // Gone meanwhile: reported by its pid alone.
    }
    return { pid, cmdline };
  });
  return described
    .filter(({ cmdline }) => !/\bvitest\b/.test(cmdline))
    .map(({ pid, cmdline }) => `${pid} ${cmdline}`);
}

export default function setup(): () => Promise<void> {
  const id = randomUUID();
  process.env[TEST_RUN_MARKER] = id;
  return async () => {
    const survivors = await markedSurvivors(TEST_RUN_MARKER, id);
    for (const line of survivors) {
      try {
        process.kill(Number(line.split(' ')[0]), 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    if (survivors.length > 0) {
      // A thrown error here is printed but does not fail vitest's exit code: set it.
      process.exitCode = 1;
      throw new Error(`processes left behind by the tests:\n${survivors.join('\n')}`);
    }
  };
}
