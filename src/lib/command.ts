import fs from 'node:fs';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** A short-lived command: git, a quality gate. */
export interface CommandRequest {
  /** The executable and its arguments (never a shell string). */
  argv: readonly string[];
  cwd: string;
  env?: Readonly<Record<string, string | undefined>>;
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL when the command outlives its timeout or is stopped. */
  killGraceMs: number;
  /** Where stdout and stderr go, interleaved; without it both are kept in memory. */
  logFile?: string;
  /** Bytes of output kept (in the log file or in memory) before the rest is dropped. */
  maxOutputBytes: number;
  /** Aborting stops the command as a timeout does. */
  signal?: AbortSignal;
  /** Its standard input (none: /dev/null). */
  input?: string;
}

/** How a command ended. */
export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Stopped through the request's signal. */
  stopped: boolean;
  /** Set when it could not be started at all. */
  startError?: string;
  /** Output kept in memory (without a log file). */
  stdout: string;
  stderr: string;
  /** The last bytes of the output, stdout and stderr interleaved, for messages. */
  tail: string;
  bytes: number;
  /** Whether output past `maxOutputBytes` was dropped. */
  capped: boolean;
  durationMs: number;
}

const TAIL_BYTES = 4096;

/** Output kept up to a cap, in a file or in memory, with the last bytes for a message. */
class OutputSink {
  bytes = 0;
  capped = false;
  readonly memory = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  private tailBuffer = Buffer.alloc(0);
  private readonly fd: number | undefined;

  constructor(
    private readonly maxBytes: number,
    logFile: string | undefined,
  ) {
    this.fd = logFile === undefined ? undefined : fs.openSync(logFile, 'a', 0o600);
  }

  write(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    const room = Math.max(0, this.maxBytes - this.bytes);
    this.bytes += chunk.length;
    this.tailBuffer = Buffer.concat([this.tailBuffer, chunk]).subarray(-TAIL_BYTES);
    const kept = chunk.subarray(0, room);
    if (kept.length > 0) {
      if (this.fd === undefined) this.memory[stream].push(kept);
      else fs.writeSync(this.fd, kept);
    }
    if (kept.length < chunk.length && !this.capped) {
      this.capped = true;
      if (this.fd !== undefined)
        fs.writeSync(this.fd, `\n[ralph: output past ${this.maxBytes} bytes dropped]\n`);
    }
  }

  get tail(): string {
    return this.tailBuffer.toString('utf8');
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Runs a command in its own process group, stdin from `input` or /dev/null, with a timeout: past it (or
 * when stopped) the group gets SIGTERM, then SIGKILL after the grace. Whatever the command left
 * behind in its group is killed when it exits, so nothing of it outlives the call.
 */
export function runCommand(request: CommandRequest): Promise<CommandResult> {
  const started = Date.now();
  const sink = new OutputSink(request.maxOutputBytes, request.logFile);
  const [file, ...args] = request.argv;
  return new Promise((resolve) => {
    let timedOut = false;
    let stopped = false;
    let killTimer: NodeJS.Timeout | undefined;
    const child = spawn(file ?? '', args, {
      cwd: request.cwd,
      env: request.env,
      stdio: [request.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      detached: true,
      shell: false,
    }) as ChildProcessByStdio<Writable | null, Readable, Readable>;
    if (child.stdin !== null) {
      // A command that exits without reading its input is not an error of the write.
      child.stdin.on('error', () => undefined);
      child.stdin.end(request.input);
    }
    const stop = (why: 'timeout' | 'stop') => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      if (why === 'timeout') timedOut = true;
      else stopped = true;
      signalGroup(child.pid, 'SIGTERM');
      killTimer ??= setTimeout(() => signalGroup(child.pid ?? 0, 'SIGKILL'), request.killGraceMs);
    };
    const timer = setTimeout(() => stop('timeout'), request.timeoutMs);
    const onAbort = () => stop('stop');
    request.signal?.addEventListener('abort', onAbort);
    if (request.signal?.aborted === true) onAbort();
    child.stdout.on('data', (chunk: Buffer) => sink.write('stdout', chunk));
    child.stderr.on('data', (chunk: Buffer) => sink.write('stderr', chunk));
    let done = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null, startError?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      request.signal?.removeEventListener('abort', onAbort);
      sink.close();
      resolve({
        code,
        signal,
        timedOut,
        stopped,
        startError,
        stdout: Buffer.concat(sink.memory.stdout).toString('utf8'),
        stderr: Buffer.concat(sink.memory.stderr).toString('utf8'),
        tail: sink.tail,
        bytes: sink.bytes,
        capped: sink.capped,
        durationMs: Date.now() - started,
      });
    };
    child.once('error', (error) => finish(null, null, error.message));
    child.once('exit', (code, signal) => {
      // What the command started and left in its group goes with it; the pipes then close.
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
      // A process that left the group may hold the pipes open: stop reading after the grace.
      const closing = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, request.killGraceMs);
      child.once('close', () => {
        clearTimeout(closing);
        finish(code, signal);
      });
    });
  });
}
