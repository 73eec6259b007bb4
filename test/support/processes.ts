import { findSessionProcesses, processStartTime } from '../../src/lib/procfs.js';
import { SESSION_MARKER } from '../../src/agent/env.js';

/** Live processes of a session: its group (led by `pid`) or anything carrying its marker. */
export async function sessionSurvivors(sessionId: string, pid?: number): Promise<number[]> {
  const found = await findSessionProcesses(pid, { name: SESSION_MARKER, value: sessionId });
  if (pid !== undefined && (await processStartTime(pid)) !== undefined && !found.includes(pid))
    found.push(pid);
  return found;
}

/** Whether a pid is alive (and not a zombie). */
export async function isAlive(pid: number): Promise<boolean> {
  return (await processStartTime(pid)) !== undefined;
}
