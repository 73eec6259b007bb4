/**
 * What a stage beside the workers (the lander, the forge stage) knows of the items it tends:
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
}
