import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Workspace } from '../config/workspace.js';
import type { Redactor } from '../lib/redact.js';
import { RunEvents, logFile } from '../runner/index.js';
import type { DecisionVerb } from '../queue/decision-kinds.js';

/** What a person may change over HTTP. */
export type HttpAction =
  | 'add'
  | 'retry'
  | 'cancel'
  | 'stop'
  | 'say'
  | 'remove'
  | 'pause'
  | 'resume'
  | 'rule accept'
  | 'rule reject'
  | 'rule retire'
  | DecisionVerb;

/** Writes one change made over HTTP to the runner's log, with the address that made it. */
export type ActionLog = (c: Context, action: HttpAction, items?: readonly string[]) => void;

/** The address of the client a request came from (behind a proxy: the proxy's). */
export function addressOf(c: Context): string {
  try {
    const { address, port } = getConnInfo(c).remote;
    return address === undefined ? 'unknown' : `${address}${port === undefined ? '' : `:${port}`}`;
  } catch {
    return 'unknown';
  }
}

/**
 * The log of a workspace's HTTP actions: `state/iteration.log`, as the runner writes it (an
 * `http_action` entry per change), so a morning's reading of the log shows who changed what.
 */
export function actionLog(workspace: Workspace, redactor: Redactor): ActionLog {
  const events = new RunEvents();
  events.redactWith(redactor);
  events.subscribe(logFile(workspace.paths.iterationLog, workspace.config.log.maxBytes));
  return (c, action, items) =>
    events.info('http_action', {
      action,
      items: items === undefined ? undefined : [...items],
      from: addressOf(c),
    });
}
