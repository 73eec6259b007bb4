const UNITS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * Reads a duration such as `90s`, `15m`, `2h`, `1h30m` or plain seconds (`120`), in seconds.
 * Returns undefined when the text is not a duration.
 */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? text : undefined;
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const parts = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/.test(trimmed)
    ? [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)]
    : [];
  if (parts.length === 0) return undefined;
  return parts.reduce((sum, [, value, unit]) => sum + Number(value) * (UNITS[unit ?? 's'] ?? 1), 0);
}

/** Formats seconds for people: `1h02m`, `4m05s`, `12.3s`. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)}s`;
  const whole = Math.round(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${m}m${String(s).padStart(2, '0')}s`;
}
