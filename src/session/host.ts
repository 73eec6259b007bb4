import type { Workspace } from '../config/workspace.js';
import type { RunEvents } from '../events/events.js';
import type { Redactor } from '../lib/redact.js';
import type { EgressProxy } from '../sandbox/proxy.js';

/** What checking a session's work needs of the runner: the workspace, the log, its sandbox. */
export interface SessionHost {
  workspace: Workspace;
  events: RunEvents;
  redactor: Redactor;
  egress: EgressProxy;
  parentEnv: Readonly<Record<string, string | undefined>>;
}
