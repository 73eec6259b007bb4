import type { SessionRecord } from '../archive/record.js';
import type { Workspace } from '../config/workspace.js';
import { findSession, readRecord } from '../workspace/sessions.js';
import { openWorkspace } from './open-workspace.js';

/** The workspace, the session a reference names, and its record (`show`, `replay`). */
export async function openSession(
  root: string,
  ref: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ workspace: Workspace; sessionId: string; record: SessionRecord }> {
  const workspace = await openWorkspace(root);
  const { sessionId } = await findSession(workspace, ref, env);
  return { workspace, sessionId, record: await readRecord(workspace, sessionId) };
}
