import { formatDuration } from '../../src/lib/duration.js';

/** Dollars; `~` marks an estimate from tokens (a CLI that reports no cost of its own). */
export const money = (usd: number | undefined, digits = 2, estimated?: boolean) =>
  usd === undefined ? '-' : `${estimated === true ? '~' : ''}$${usd.toFixed(digits)}`;

export const since = (iso: string | undefined, now: number) =>
  iso === undefined ? '-' : formatDuration(Math.max(0, (now - Date.parse(iso)) / 1000));

const two = (n: number) => String(n).padStart(2, '0');

/** A time of day in the person's own time zone: `14:05:09`. */
export const clock = (iso: string) => {
  const d = new Date(iso);
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
};

/** A date and time in the person's own time zone: `2026-11-24 14:05:09`. */
export const when = (iso: string | undefined) => {
  if (iso === undefined) return '-';
  const d = new Date(iso);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${clock(iso)}`;
};

export { formatDuration };
