import type { Workspace } from '../config/workspace.js';
import type { ActionLog } from './action-log.js';
import type { Redactor } from '../lib/redact.js';
import type { Queue } from '../queue/queue.js';
import type { Changes } from './changes.js';
import type { IndexCache } from './index-cache.js';
import type { StatusFeed } from './status-feed.js';

/** What every route of a server shares. */
export interface ServerContext {
  workspace: Workspace;
  /** The workspace's queue, open for the server's life. */
  queue: Queue;
  /** Masks the environment's secrets in everything served. */
  redactor: Redactor;
  readOnly: boolean;
  changes: Changes;
  status: StatusFeed;
  index: IndexCache;
  /** How often an idle event stream gets a comment, so proxies keep it open. */
  heartbeatMs: number;
  /** The built dashboard (`dist/dashboard`). */
  assets: string;
  /** Writes a change made over HTTP to the runner's log. */
  logAction: ActionLog;
}
