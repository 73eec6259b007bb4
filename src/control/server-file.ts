import path from 'node:path';
import { rm } from 'node:fs/promises';
import { readIfExists, writeJsonAtomically } from '../lib/fs.js';

/** `state/serve.json`: where a `ralph serve` of this workspace listens, while it runs. */
export interface ServerInfo {
  pid: number;
  /** The process's start time, so that a reused pid is not taken for the server. */
  startTime?: string;
  url: string;
  readOnly: boolean;
  startedAt: string;
}

/**
 * The file's value if it has the shape of a ServerInfo. Checked by hand: `ralph status` reads
 * it at every start, and the schema library would cost more than the command.
 */
function serverInfoOf(value: unknown): ServerInfo | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const ok =
    typeof v.pid === 'number' &&
    (v.startTime === undefined || typeof v.startTime === 'string') &&
    typeof v.url === 'string' &&
    typeof v.readOnly === 'boolean' &&
    typeof v.startedAt === 'string';
  if (!ok) return undefined;
  const { pid, startTime, url, readOnly, startedAt } = v as unknown as ServerInfo;
  return { pid, ...(startTime === undefined ? {} : { startTime }), url, readOnly, startedAt };
}

export function serverFile(stateDir: string): string {
  return path.join(stateDir, 'serve.json');
}

export async function writeServerInfo(stateDir: string, info: ServerInfo): Promise<void> {
  await writeJsonAtomically(serverFile(stateDir), info);
}

/** Removes the file if it still names this process's server. */
export async function removeServerInfo(stateDir: string, pid: number): Promise<void> {
  if ((await readServerInfo(stateDir))?.pid === pid)
    await rm(serverFile(stateDir), { force: true });
}

/** The server the file names, if it reads well (whether its process lives is the caller's question). */
export async function readServerInfo(stateDir: string): Promise<ServerInfo | undefined> {
  const text = await readIfExists(serverFile(stateDir)).catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return serverInfoOf(JSON.parse(text));
  } catch {
    return undefined;
  }
}
