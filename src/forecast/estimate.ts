import type { SessionStages } from '../queue/lifecycle.js';
import type { IndexEntry } from '../archive/index-entry.js';

/** What decides an item's likely cost and time: who runs it, on what, within which caps. */
export interface Profile {
  persona?: string;
  cli: string;
  /** The model its settings name (absent: the CLI's own, and any past model counts). */
  model?: string;
  /** Its caps, the forecast where there is no history. */
  maxBudgetUsd: number;
  timeoutSeconds: number;
  /** What a success goes through after its session (its review, its landing). */
  stages?: SessionStages;
}

/** A session's likely cost, time and chance of success, and what they rest on. */
export interface Estimate {
  costUsd: number;
  seconds: number;
  /** The chance it succeeds (0–1): succeeded past sessions, one of each added for humility. */
  chance: number;
  basis: { kind: 'history'; sessions: number; succeeded: number } | { kind: 'caps' };
}

/** Past sessions of similar work: the same persona, CLI and model. */
export class History {
  /** The sessions of each CLI and persona. */
  private readonly byWho = new Map<string, IndexEntry[]>();
  /** Estimates made, by profile: a plan asks for the same ones again and again. */
  private readonly made = new Map<string, Estimate>();
  /** How long the reviewers' sessions took (ms). */
  private readonly reviews: number[] = [];

  constructor(entries: readonly IndexEntry[]) {
    for (const entry of entries) {
      if (entry.endedAt === undefined) continue;
      // A reviewer's session is no work of its item: it is the time its item waits for a verdict.
      if (entry.role === 'reviewer') this.reviews.push(entry.durationMs ?? 0);
      if (entry.role !== undefined) continue;
      const key = `${entry.cli}\n${entry.persona ?? ''}`;
      const sessions = this.byWho.get(key) ?? [];
      sessions.push(entry);
      this.byWho.set(key, sessions);
    }
  }

  /** The medians of the similar sessions; the profile's caps where there are none. */
  estimate(profile: Profile): Estimate {
    const key = JSON.stringify([
      profile.cli,
      profile.persona,
      profile.model,
      profile.maxBudgetUsd,
      profile.timeoutSeconds,
    ]);
    const made = this.made.get(key) ?? this.compute(profile);
    this.made.set(key, made);
    return made;
  }

  /** The median time a review took (seconds), 0 with none on record. */
  reviewSeconds(): number {
    return this.reviews.length === 0 ? 0 : Math.round(median(this.reviews) / 1000);
  }

  private compute(profile: Profile): Estimate {
    const similar = (this.byWho.get(`${profile.cli}\n${profile.persona ?? ''}`) ?? []).filter(
      (e) => profile.model === undefined || e.model === profile.model,
    );
    if (similar.length === 0)
      return {
        costUsd: profile.maxBudgetUsd,
        seconds: profile.timeoutSeconds,
        chance: 0.5,
        basis: { kind: 'caps' },
      };
    const succeeded = similar.filter((e) => e.outcome === 'success' && e.asked !== true).length;
    return {
      costUsd: median(similar.map((e) => e.costUsd)),
      seconds: Math.round(median(similar.map((e) => e.durationMs ?? 0)) / 1000),
      chance: (succeeded + 1) / (similar.length + 2),
      basis: { kind: 'history', sessions: similar.length, succeeded },
    };
  }
}

/** The middle value (the mean of the two middle ones of an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
