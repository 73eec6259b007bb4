/** Why the loop was asked to stop. */
export interface StopRequest {
  /** The signal that asked, for the exit code (128 + N). */
  signal?: NodeJS.Signals;
  /** A second request: no more graces. */
  force: boolean;
}

/** The loop's stop switch, shared by the signal handlers, the loop and the running session. */
export class StopControl {
  private request: StopRequest | undefined;
  private readonly listeners = new Set<(request: StopRequest) => void>();
  private readonly controller = new AbortController();

  /** Aborts when a stop is requested: every wait of the loop listens to it. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get requested(): StopRequest | undefined {
    return this.request;
  }

  /** Asks the loop to stop; a second call forces. */
  stop(signal?: NodeJS.Signals): void {
    this.request = { signal: this.request?.signal ?? signal, force: this.request !== undefined };
    this.controller.abort();
    for (const listener of this.listeners) listener(this.request);
  }

  /** Calls `listener` on every request from now on; returns the unsubscribe function. */
  onStop(listener: (request: StopRequest) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
