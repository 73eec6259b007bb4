import fs from 'node:fs';
import { PRIVATE_FILE_MODE } from '../lib/fs.js';
import { Redactor } from '../lib/redact.js';

/** One line of the runner's log. */
export interface LogEntry {
  time: string;
  level: 'info' | 'warn' | 'error';
  event: string;
  [key: string]: unknown;
}

/** Where log entries go besides the file (the terminal, a test). */
export type LogSink = (entry: LogEntry) => void;

const APPEND_FLAGS =
  fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW;

/**
 * The runner's JSON-lines log (`state/iteration.log`), redacted, rotated past `maxBytes`
 * keeping one old file. Writes are synchronous so entries keep their order and survive a crash.
 */
export class RunLog {
  private size: number | undefined;
  private redactor = new Redactor([]);
  private readonly secrets: string[] = [];

  constructor(
    private readonly file: string,
    private readonly maxBytes: number,
    private readonly sinks: LogSink[] = [],
    private readonly now: () => number = Date.now,
  ) {}

  /** Adds secret values to mask from now on. */
  addSecrets(secrets: readonly string[]): void {
    this.secrets.push(...secrets);
    this.redactor = new Redactor(this.secrets);
  }

  info(event: string, data: Record<string, unknown> = {}): void {
    this.write('info', event, data);
  }

  warn(event: string, data: Record<string, unknown> = {}): void {
    this.write('warn', event, data);
  }

  error(event: string, data: Record<string, unknown> = {}): void {
    this.write('error', event, data);
  }

  private write(level: LogEntry['level'], event: string, data: Record<string, unknown>): void {
    const entry = this.redactor.redactValue<LogEntry>({
      time: new Date(this.now()).toISOString(),
      level,
      event,
      ...data,
    });
    const line = `${JSON.stringify(entry)}\n`;
    try {
      this.rotateIfNeeded(Buffer.byteLength(line));
      const fd = fs.openSync(this.file, APPEND_FLAGS, PRIVATE_FILE_MODE);
      try {
        fs.writeSync(fd, line);
      } finally {
        fs.closeSync(fd);
      }
      this.size = (this.size ?? 0) + Buffer.byteLength(line);
    } catch {
      // The log is a convenience: a full disk must not stop the runner from settling items.
    }
    for (const sink of this.sinks) sink(entry);
  }

  private rotateIfNeeded(incoming: number): void {
    if (this.size === undefined) {
      try {
        this.size = fs.statSync(this.file).size;
      } catch {
        this.size = 0;
      }
    }
    if (this.size + incoming <= this.maxBytes || this.size === 0) return;
    fs.renameSync(this.file, `${this.file}.1`);
    this.size = 0;
  }
}
