// The shapes the API answers with, for its clients: the dashboard imports them from here
// rather than copying them. Types only: nothing here runs.
import type { NightSummary, reportOf } from '../archive/report.js';
import type { IndexEntry } from '../archive/index-entry.js';
import type { Item } from '../queue/item.js';
import type { RunningSession, StatusReport } from '../runner/status-report.js';

export type { ReportGroup } from '../archive/report.js';

/** An item as `GET /items` lists it: without its task text, with why it waits. */
export type ListedItem = Omit<Item, 'body'> & { waiting?: string };

/** `GET /items/:id`: the item whole. */
export type ItemDetail = Item & { waiting?: string };

/** `GET /night`: the last run at a glance, each failure with the agent's last words. */
export interface Night extends Omit<NightSummary, 'failures'> {
  failures: (NightSummary['failures'][number] & { lastWords?: string })[];
}

/** A finished session as `GET /sessions` lists it. */
export type SessionEntry = IndexEntry;

/** A running session as `/health` sends it: the seconds that count by themselves left out. */
export type HealthSession = Omit<RunningSession, 'elapsedSeconds' | 'idleSeconds'>;

/** `/health`: the status of `ralph status --json`, and what the server says of itself. */
export type Health = Omit<StatusReport, 'running'> & {
  version: string;
  readOnly: boolean;
  running: HealthSession[];
};

/** `GET /report`: the sums by day, item and CLI since a time. */
export type Report = ReturnType<typeof reportOf> & { since?: string };
