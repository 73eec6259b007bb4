import type pg from 'pg';
import { jittered } from '../../lib/backoff.js';
import type { QueueAnnouncement } from '../queue.js';
import { CHANGES_CHANNEL } from './items-table.js';

/** The wait before listening again after the listening connection broke. */
const RELISTEN_MS = 2_000;

/**
 * The queue's changes as the database announces them: one connection listens while anyone
 * subscribes; one that breaks (the database restarted) is opened again, and the listeners
 * told, since changes may have been missed meanwhile. Their poll is the fallback all along.
 */
export class PgAnnouncements {
  private readonly listeners = new Set<(cause: QueueAnnouncement) => void>();
  private listening: pg.Client | undefined;
  private closed = false;

  constructor(
    /** The queue's name: the payload of its announcements. */
    private readonly name: string,
    /** A connection of its own to listen on. */
    private readonly listener: () => pg.Client,
  ) {}

  subscribe(listener: (cause: QueueAnnouncement) => void): () => void {
    this.listeners.add(listener);
    if (this.listening === undefined) void this.listen();
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.listening?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    while (!this.closed && this.listeners.size > 0) {
      const client = this.listener();
      this.listening = client;
      const ended = new Promise<void>((resolve) => {
        // Every error, not just the first: an unheard one would end the process.
        client.on('error', () => resolve());
        client.once('end', () => resolve());
      });
      client.on('notification', ({ channel, payload }) => {
        if (channel === CHANGES_CHANNEL && payload === this.name) this.tell('changed');
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${CHANGES_CHANNEL}`);
        this.tell('listening');
        await ended;
      } catch {
        // Unreachable now: try again after a pause.
      }
      await client.end().catch(() => undefined);
      if (!this.closed)
        await new Promise((resolve) => setTimeout(resolve, jittered(RELISTEN_MS)).unref());
    }
    this.listening = undefined;
  }

  private tell(cause: QueueAnnouncement): void {
    for (const listener of this.listeners) listener(cause);
  }
}
