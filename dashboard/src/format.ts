import { formatDuration } from '../../src/lib/duration.js';

/** Dollars; `~` marks an estimate from tokens (a CLI that reports no cost of its own). */
export const money = (usd: number | undefined, digits = 2, estimated?: boolean) =>
  usd === undefined ? '-' : `${estimated === true ? '~' : ''}$${usd.toFixed(digits)}`;

export const since = (iso: string | undefined, now: number) =>
  iso === undefined ? '-' : formatDuration(Math.max(0, (now - Date.parse(iso)) / 1000));

export const when = (iso: string | undefined) =>
  iso === undefined ? '-' : iso.slice(0, 19).replace('T', ' ');

export { formatDuration };
