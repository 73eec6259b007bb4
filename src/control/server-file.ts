import path from 'node:path';
import { z } from '../lib/zod.js';
import { rm } from 'node:fs/promises';
import { readIfExists, writeJsonAtomically } from '../lib/fs.js';

/** `state/serve.json`: where a `ralph serve` of this workspace listens, while it runs. */
export const ServerInfoSchema = z.object({
  pid: z.number(),
  /** The process's start time, so that a reused pid is not taken for the server. */
  startTime: z.string().optional(),
  url: z.string(),
  readOnly: z.boolean(),
  startedAt: z.string(),
});

export type ServerInfo = z.output<typeof ServerInfoSchema>;

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
    const parsed = ServerInfoSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
