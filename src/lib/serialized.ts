/**
 * Runs `work` alone: a call while it runs asks for one more round after it, never a second
 * round beside it. `idle` resolves once no round runs or is asked for.
 */
export function serialized(work: () => Promise<void>): { kick(): void; idle(): Promise<void> } {
  let running: Promise<void> | undefined;
  let again = false;
  const kick = (): void => {
    if (running !== undefined) {
      again = true;
      return;
    }
    running = work()
      .catch(() => undefined)
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          kick();
        }
      });
  };
  return {
    kick,
    idle: async () => {
      while (running !== undefined) await running;
    },
  };
}
