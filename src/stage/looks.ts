/**
 * What the stage loop knows of the items a stage tends:
 * how many waited at its last look at the queue, and whether the queue changed since that look
 * began. A drained run ends only once every stage is idle, and a stage is not idle while a
 * change it has not looked at may have given it an item: a worker that just finished one must
 * not end the run before the stage has seen it.
 */
export class StageLooks {
  private waiting = 0;
  private unseen = 0;

  /** Whether items wait, or may since the last look. */
  get busy(): boolean {
    return this.waiting > 0 || this.unseen > 0;
  }

  /** The queue may have changed (a session ended, the store announced a change). */
  changed(): void {
    this.unseen++;
  }

  /** A look begins: the changes it will have seen. */
  begin(): number {
    return this.unseen;
  }

  /** A look begun at `begun` found `waiting` items; changes since it began are still unseen. */
  saw(begun: number, waiting: number): void {
    this.unseen -= begun;
    this.waiting = waiting;
  }

  /**
   * Whether the queue changed since the last look began: a stage that is to sleep looks again
   * first, or the wake-up that change sent (before the sleep began) would be lost.
   */
  get changedSinceLook(): boolean {
    return this.unseen > 0;
  }
}

/**
 * The items a stage could not move on this run: those a fault of the world's kept waiting (a
 * git that failed, a reviewer that answered no verdict), and those whose next look, stored with
 * them, was later than its last look. A drained run ends with each counted as a failure.
 */
export class Unmoved {
  private readonly erred = new Set<string>();
  private later = new Set<string>();

  /** The items of a look that are due now (`dueAt`); the others wait for their next look. */
  due<I extends { id: string }>(items: readonly I[], now: number, dueAt: (item: I) => number): I[] {
    this.later = new Set(items.filter((item) => dueAt(item) > now).map((item) => item.id));
    return items.filter((item) => !this.later.has(item.id));
  }

  /** A fault kept `id` waiting. */
  erredOn(id: string): void {
    this.erred.add(id);
  }

  /** `id` moved on (or was recorded as it is). */
  movedOn(id: string): void {
    this.erred.delete(id);
  }

  /** Whether a fault kept `id` waiting this run. */
  hasErred(id: string): boolean {
    return this.erred.has(id);
  }

  get count(): number {
    return new Set([...this.erred, ...this.later]).size;
  }
}
