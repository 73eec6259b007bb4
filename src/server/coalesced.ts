/**
 * A trigger that runs `task` one run at a time: triggered during a run, it runs once more after
 * it (however many triggers came), so no change is missed and none is read twice at once.
 */
export function coalesced(
  task: () => Promise<void>,
  onError: (error: unknown) => void,
): () => void {
  let running = false;
  let again = false;
  const run = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await task();
      } while (again);
    } catch (error) {
      onError(error);
    } finally {
      running = false;
    }
  };
  return () => void run();
}
