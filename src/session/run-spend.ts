/** The run's spend as a stage's sessions (a reviewer's) take part in it. */
export interface RunSpend {
  /** What the next session may spend of the run's limit (none: no limit); 0 when it is spent. */
  left(): number | undefined;
  /** A session of a stage's spent this, counted in the run's cost. */
  spent(costUsd: number): void;
}

/** A run without a cost limit whose stages run no session of their own (`ralph land`). */
export const NO_RUN_SPEND: RunSpend = { left: () => undefined, spent: () => undefined };
