import { isCliName, type CliName } from '../config/cli-names.js';
import type { HeldCli } from '../control/files.js';

/** Why a CLI takes no new session for now. */
export interface CliHold {
  /** When it may take one again (epoch ms); `Infinity`: not again in this run. */
  until: number;
  reason: string;
  /** A usage limit it reported, the reserve of its window reached, or its credit or login gone. */
  kind: 'limit' | 'reserve' | 'credit' | 'credentials';
}

/**
 * The CLIs this runner holds back, each until its limit resets: items choose another CLI or
 * wait while their own is held. A hold that has passed is forgotten when next asked about.
 */
export class CliHolds {
  private readonly holds = new Map<CliName, CliHold>();

  /** `changed` hears every change, with the holds as they are then (status shows them). */
  constructor(private readonly changed: (holds: ReadonlyMap<CliName, CliHold>) => void) {}

  /** Holds `cli` back; a hold already there that lasts longer stays. */
  hold(cli: CliName, hold: CliHold): void {
    const held = this.holds.get(cli);
    if (held !== undefined && held.until >= hold.until) return;
    this.holds.set(cli, hold);
    this.changed(this.holds);
  }

  /** The holds that outlast this run: those that end at a time (a limit's reset, a window's). */
  lasting(now: number): Map<CliName, CliHold> {
    return new Map(
      [...this.holds].filter(([, hold]) => Number.isFinite(hold.until) && hold.until > now),
    );
  }

  /** Why `cli` takes no session now, if it is held. */
  of(cli: CliName, now: number): CliHold | undefined {
    const held = this.holds.get(cli);
    if (held === undefined || held.until > now) return held;
    this.holds.delete(cli);
    this.changed(this.holds);
    return undefined;
  }
}

/** The holds as `state/holds.json` says them. */
export function heldClis(holds: ReadonlyMap<CliName, CliHold>): HeldCli[] {
  return [...holds].map(([cli, { until, reason, kind }]) => ({
    cli,
    ...(Number.isFinite(until) ? { until: new Date(until).toISOString() } : {}),
    reason,
    kind,
  }));
}

/**
 * The holds an earlier run left in `state/holds.json` that still last: those that end at a
 * time still to come. A hold "for this run" (a login or credit gone) waits for a person, who
 * may have acted since; the next run tries again.
 */
export function keptHolds(held: readonly HeldCli[], now: number): Map<CliName, CliHold> {
  const kept = new Map<CliName, CliHold>();
  for (const { cli, until, reason, kind } of held) {
    const at = until === undefined ? NaN : Date.parse(until);
    if (!(at > now) || !(kind === 'limit' || kind === 'reserve') || !isCliName(cli)) continue;
    kept.set(cli, { until: at, reason, kind });
  }
  return kept;
}
