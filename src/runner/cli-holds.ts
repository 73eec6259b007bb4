import type { CliName } from '../config/cli-names.js';
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
