/** A Postgres cluster of its own, started by `startPostgres`. */
export interface Postgres {
  /** The URL of a new, empty database of the cluster. */
  database(): Promise<string>;
  /** Stops the server (fast: connections cut); `start` starts it again on the same port. */
  stop(): void;
  start(): void;
  /** Stops the server and removes its files. */
  close(): void;
}

/** The directory of Postgres's server binaries, or undefined when none is installed. */
export function postgresBin(): string | undefined;

/** Starts a cluster of its own; `close()` it when done. */
export function startPostgres(): Promise<Postgres>;
