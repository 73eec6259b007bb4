// Apart from the queue's interface: the dashboard shows it and must not compile the queue.

/** A runner of the fleet, as the runners table shows it. */
export interface FleetRunner {
  id: string;
  host: string;
  pid: number;
  /** The workspace's root on its host. */
  workspace: string;
  workers: number;
  startedAt: string;
  heartbeatAt: string;
  /** The items it runs now (those it holds a lease on). */
  items: string[];
}
