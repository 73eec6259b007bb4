/**
 * A preparation that failed: the item's fault (it is rejected, the rest of the queue goes on)
 * or the workspace's (every item would fail the same way: the night pauses), never the agent's.
 */
export interface PreparationError {
  reason: string;
  scope: 'item' | 'workspace';
  /**
   * The item's settings cannot be used (stored by some path unchecked): it is parked for a
   * person to fix (`ralph edit`, then `ralph resume`), its attempt given back.
   */
  park?: boolean;
}
