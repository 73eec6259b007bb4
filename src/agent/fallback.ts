import type { CliName } from '../config/cli-names.js';
import type { FallbackCli, FallbackSettings } from './settings.js';
import type { CliHold } from './cli-holds.js';

/** Which CLI a session runs on. */
export type CliChoice =
  /** Its own: not held (or held with nothing to fall back on and nothing to wait for). */
  | { kind: 'own' }
  /** A fallback, because its own is held. */
  | { kind: 'fallback'; to: FallbackCli; from: CliName; reason: string }
  /** None now: the item waits until `until`, the earliest a CLI it may use is free again. */
  | { kind: 'held'; cli: CliName; until: number; reason: string };

/**
 * The CLI of a session whose own CLI may be held: its own when free; waited for when its hold
 * ends within `fallback.afterSeconds` (a five-hour window) or it has no fallback; else the first
 * fallback that is free and can honour the item's settings; else the earliest reset of them all.
 */
export function chooseCli(input: {
  own: CliName;
  fallback: FallbackSettings;
  now: number;
  held: (cli: CliName) => CliHold | undefined;
  /** Why a fallback cannot run the item's session (its settings), if it cannot. */
  refuses: (choice: FallbackCli) => string | undefined;
}): CliChoice {
  const { own, fallback, now, held } = input;
  const ownHold = held(own);
  if (ownHold === undefined) return { kind: 'own' };
  const wait = (cli: CliName, hold: CliHold): CliChoice =>
    Number.isFinite(hold.until)
      ? { kind: 'held', cli, until: hold.until, reason: hold.reason }
      : // Nothing will free it in this run: it runs, and its failure pauses the night.
        { kind: 'own' };
  if (fallback.clis.length === 0 || ownHold.until - now <= fallback.afterSeconds * 1000)
    return wait(own, ownHold);
  const holds: { cli: CliName; hold: CliHold }[] = [{ cli: own, hold: ownHold }];
  for (const choice of fallback.clis) {
    if (input.refuses(choice) !== undefined) continue;
    const hold = held(choice.cli);
    if (hold === undefined)
      return { kind: 'fallback', to: choice, from: own, reason: `${own}: ${ownHold.reason}` };
    holds.push({ cli: choice.cli, hold });
  }
  const earliest = holds.reduce((a, b) => (b.hold.until < a.hold.until ? b : a));
  return wait(earliest.cli, earliest.hold);
}
