import os from 'node:os';
import type { StopControl } from '../runner/index.js';

/**
 * The one place that handles the process's signals during `ralph run`: the first SIGINT or
 * SIGTERM stops gracefully, a second one forces. Returns the function that removes the handlers.
 */
export function handleStopSignals(
  control: StopControl,
  onSignal: (signal: NodeJS.Signals) => void,
): () => void {
  const handler = (signal: NodeJS.Signals) => {
    onSignal(signal);
    control.stop(signal);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/** Waits for the first SIGINT or SIGTERM (a command that serves until stopped), and says which. */
export function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals) => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
      resolve(signal);
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  });
}

/** Exit code for a run ended by a signal: 128 + its number. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (os.constants.signals[signal] ?? 0);
}
