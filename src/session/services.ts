import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { SESSION_MARKER } from '../agent/env.js';
import { reapSession } from '../agent/process.js';
import type { SessionFiles } from '../archive/paths.js';
import type { Service } from '../environment/config-schema.js';
import { gateEntry, type SandboxHost } from '../sandbox/entry.js';
import type { EgressRefusal } from '../sandbox/proxy.js';
import type { PreparedSession } from './prepare.js';

/** What runs a service in the session's sandbox: its command and environment there. */
export type EnterService = (
  command: readonly string[],
) => Promise<
  { command: string[]; env: Record<string, string>; close(): Promise<void> } | { problem: string }
>;

/** The services of one session, running until `stop`. */
export interface RunningServices {
  /** Ends each one's process group, then whatever of theirs left it; waits for them. */
  stop(): Promise<void>;
}

/**
 * Starts the item's services (a database, a server its tests need) beside its session, in the
 * work dir, each in a process group of its own marked as the session's services, their output
 * in `logFile`. They run through the agent's session and its gates, and are stopped and reaped
 * with it: nothing of them outlives the attempt.
 */
async function startServices(
  services: readonly Service[],
  request: {
    sessionId: string;
    cwd: string;
    env: Readonly<Record<string, string>>;
    logFile: string;
    killGraceMs: number;
    enter?: EnterService;
  },
): Promise<RunningServices> {
  // Their own mark: the agent's end reaps what carries the session's, not its services.
  const marker = `${request.sessionId}-services`;
  const running: { child: ChildProcess; exited: Promise<void>; close(): Promise<void> }[] = [];
  for (const service of services) {
    fs.appendFileSync(
      request.logFile,
      `$ ${JSON.stringify(service.command)}  (service "${service.name}")\n`,
      {
        mode: 0o600,
      },
    );
    const entered =
      request.enter === undefined
        ? { command: [...service.command], env: { ...request.env }, close: () => Promise.resolve() }
        : await request.enter(service.command);
    if ('problem' in entered) {
      fs.appendFileSync(
        request.logFile,
        `[service "${service.name}" did not start: ${entered.problem}]\n`,
      );
      continue;
    }
    const log = fs.openSync(request.logFile, 'a');
    const [file = '', ...args] = entered.command;
    const child = spawn(file, args, {
      cwd: request.cwd,
      env: { ...entered.env, [SESSION_MARKER]: marker },
      detached: true,
      stdio: ['ignore', log, log],
    });
    fs.closeSync(log);
    const exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        fs.appendFileSync(
          request.logFile,
          `\n[service "${service.name}" ended: ${signal ?? `exit ${code}`}]\n`,
        );
        resolve();
      });
      child.once('error', (error) => {
        fs.appendFileSync(
          request.logFile,
          `\n[service "${service.name}" did not start: ${error.message}]\n`,
        );
        resolve();
      });
    });
    running.push({ child, exited, close: () => entered.close() });
  }
  return {
    async stop() {
      for (const { child } of running)
        if (child.pid !== undefined && child.exitCode === null && child.signalCode === null)
          try {
            process.kill(-child.pid, 'SIGTERM');
          } catch {
            // Gone already.
          }
      await Promise.all(
        running.map(({ child, exited }) =>
          Promise.race([
            exited,
            new Promise<void>((resolve) => setTimeout(resolve, request.killGraceMs).unref()),
          ]).then(() => reapSession(child.pid, marker, request.killGraceMs)),
        ),
      );
      await Promise.all(running.map((service) => service.close()));
    },
  };
}

/**
 * The session's services (`environment.services`), started beside its agent in its work dir and
 * its sandbox; undefined when it has none.
 */
export async function startSessionServices(
  host: SandboxHost,
  session: { prepared: PreparedSession; files: SessionFiles; sessionId: string },
  onRefused: (refusal: EgressRefusal) => void,
): Promise<RunningServices | undefined> {
  const { prepared, files, sessionId } = session;
  const { services } = prepared.work.environment;
  if (services.length === 0) return undefined;
  const { sandbox } = prepared.work;
  return startServices(services, {
    sessionId,
    cwd: prepared.settings.workDir,
    env: prepared.env,
    logFile: files.services,
    killGraceMs: host.workspace.config.run.killGrace * 1000,
    enter: gateEntry(host, {
      sandbox,
      env: prepared.env,
      workDir: prepared.settings.workDir,
      worktree: prepared.checkout?.worktree,
      onRefused,
    }),
  });
}
