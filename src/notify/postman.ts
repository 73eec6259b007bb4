import { timeoutSignal } from '../lib/abort-wait.js';
import { exponentialBackoffMs } from '../lib/backoff.js';
import { serialized } from '../lib/serialized.js';
import { DeliveryError } from './channels.js';
import type { NotifyMessage, Recipient } from './message.js';
import type { Delivery, Outbox, OutboxEntry } from './outbox.js';

/** The wait after a first failed try; it doubles with each further one, up to the cap. */
const BACKOFF_BASE_MS = 5_000;
const BACKOFF_CAP_MS = 10 * 60_000;
/** A delivery failing this long after its message is given up (its error kept in `sent/`). */
export const GIVE_UP_AFTER_MS = 24 * 3600_000;

export interface PostmanOptions {
  outbox: Outbox;
  /** Sends a message to one target; throws when it could not (a `DeliveryError` says why). */
  deliver: (
    target: Recipient,
    message: NotifyMessage,
    id: string,
    signal: AbortSignal,
  ) => Promise<void>;
  now: () => number;
  /** The longest one try may take (a receiver that never answers is let go). */
  tryTimeoutMs: number;
  /** Told of each try's end: the runner logs it. */
  told: (outcome: 'sent' | 'failed' | 'given_up', entry: OutboxEntry, delivery: Delivery) => void;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Delivers the outbox in the background: each target of each message tried in turn, a failed
 * try retried with a growing wait, every try bounded in time. Nobody awaits it but `stop`: a
 * receiver that is down or hangs never holds the night back.
 */
export class Postman {
  private readonly rounds = serialized(() => this.round());
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly stopping = new AbortController();

  constructor(private readonly options: PostmanOptions) {}

  /**
   * Writes a message to the outbox for its targets, then sends it. An id already written (the
   * same happening told again after a restart) is not written twice.
   */
  post(id: string, message: NotifyMessage, targets: readonly Recipient[]): Promise<void> {
    const { outbox, now } = this.options;
    // Written one after the other, so that they are sent in the order they were made.
    const written = this.writing.then(async () => {
      if (targets.length === 0 || outbox.has(id)) return;
      await outbox.put({
        id,
        createdAt: iso(now()),
        message,
        deliveries: targets.map((target) => ({ target, attempts: 0 })),
      });
      this.kick();
    });
    this.writing = written.catch(() => undefined);
    return written;
  }

  /** Delivers what is due now (what an earlier runner left, a new message). */
  kick(): void {
    if (!this.stopping.signal.aborted) this.rounds.kick();
  }

  /**
   * Gives the deliveries under way, and those due before `graceMs` is over (a retry soon), that
   * time to end, then stops; what is left waits in the outbox for the next runner.
   */
  async stop(graceMs: number): Promise<void> {
    const { now } = this.options;
    const deadline = now() + graceMs;
    const timer = setTimeout(() => this.stopping.abort(), graceMs);
    try {
      for (;;) {
        await this.rounds.idle();
        const next = await this.nextDue();
        if (next === undefined || next > deadline || this.stopping.signal.aborted) break;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - now())));
        this.kick();
      }
    } finally {
      clearTimeout(timer);
      this.stopping.abort();
      clearTimeout(this.timer);
      await this.rounds.idle();
    }
  }

  /** When the next delivery waiting is due (undefined: none waits). */
  private async nextDue(): Promise<number | undefined> {
    let next: number | undefined;
    for (const entry of await this.options.outbox.waiting())
      for (const d of entry.deliveries)
        if (d.sentAt === undefined && d.gaveUpAt === undefined)
          next = Math.min(next ?? Infinity, d.nextAt === undefined ? 0 : Date.parse(d.nextAt));
    return next;
  }

  private async round(): Promise<void> {
    const { outbox, now } = this.options;
    clearTimeout(this.timer);
    let next: number | undefined;
    for (const entry of await outbox.waiting()) {
      for (const delivery of entry.deliveries) {
        if (delivery.sentAt !== undefined || delivery.gaveUpAt !== undefined) continue;
        const due = delivery.nextAt === undefined ? 0 : Date.parse(delivery.nextAt);
        if (due <= now()) {
          if (this.stopping.signal.aborted) return;
          await this.attempt(entry, delivery);
        }
        if (
          delivery.nextAt !== undefined &&
          delivery.sentAt === undefined &&
          delivery.gaveUpAt === undefined
        )
          next = Math.min(next ?? Infinity, Date.parse(delivery.nextAt));
      }
      if (entry.deliveries.every((d) => d.sentAt !== undefined || d.gaveUpAt !== undefined))
        await outbox.close(entry);
    }
    if (next !== undefined && !this.stopping.signal.aborted) {
      this.timer = setTimeout(() => this.kick(), Math.max(0, next - now()));
      // A wait for a retry never keeps the process alive.
      this.timer.unref();
    }
  }

  private async attempt(entry: OutboxEntry, delivery: Delivery): Promise<void> {
    const { options } = this;
    const { signal, release } = timeoutSignal(this.stopping.signal, options.tryTimeoutMs);
    delivery.attempts++;
    try {
      await options.deliver(delivery.target, entry.message, entry.id, signal);
      delivery.sentAt = iso(options.now());
      delivery.nextAt = undefined;
      delivery.lastError = undefined;
    } catch (error) {
      delivery.lastError = error instanceof Error ? error.message : String(error);
      const age = options.now() - Date.parse(entry.createdAt);
      if (age >= GIVE_UP_AFTER_MS) delivery.gaveUpAt = iso(options.now());
      else {
        const backoff = exponentialBackoffMs(delivery.attempts, BACKOFF_BASE_MS, BACKOFF_CAP_MS);
        const asked = error instanceof DeliveryError ? (error.retryAfterMs ?? 0) : 0;
        delivery.nextAt = iso(options.now() + Math.max(backoff, Math.min(asked, BACKOFF_CAP_MS)));
      }
    } finally {
      release();
    }
    // Recorded as soon as it is made: a crash can repeat this one try at most, never the rest.
    await options.outbox.put(entry);
    options.told(
      delivery.sentAt !== undefined
        ? 'sent'
        : delivery.gaveUpAt !== undefined
          ? 'given_up'
          : 'failed',
      entry,
      delivery,
    );
  }
}
