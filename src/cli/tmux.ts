import { runCommand } from '../lib/command.js';
import { RalphError } from '../lib/errors.js';

/** What a tmux command printed, and whether it succeeded. */
interface TmuxResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/**
 * The tmux command line, and nothing of its control mode: each call is one `tmux` process with
 * argv arrays (a command given to tmux as several arguments runs without a shell).
 */
export class Tmux {
  constructor(private readonly env: Readonly<Record<string, string | undefined>>) {}

  private async run(args: string[]): Promise<TmuxResult> {
    const result = await runCommand({
      argv: ['tmux', ...args],
      cwd: process.cwd(),
      env: this.env,
      timeoutMs: 10_000,
      killGraceMs: 1_000,
      maxOutputBytes: 1024 * 1024,
    });
    if (result.startError !== undefined) throw new TmuxMissing();
    return { ok: result.code === 0, stdout: result.stdout, stderr: result.stderr };
  }

  private async must(args: string[]): Promise<string> {
    const result = await this.run(args);
    if (!result.ok) throw new RalphError(`tmux ${args[0] ?? ''} failed: ${result.stderr.trim()}`);
    return result.stdout;
  }

  /** Whether tmux can be run at all. */
  async available(): Promise<boolean> {
    try {
      return (await this.run(['-V'])).ok;
    } catch (error) {
      if (error instanceof TmuxMissing) return false;
      throw error;
    }
  }

  async hasSession(name: string): Promise<boolean> {
    return (await this.run(['has-session', '-t', `=${name}`])).ok;
  }

  /** A detached session whose first window runs `argv`. */
  async newSession(name: string, window: string, cwd: string, argv: string[]): Promise<void> {
    await this.must([
      'new-session',
      '-d',
      '-s',
      name,
      '-n',
      window,
      '-c',
      cwd,
      '-x',
      '200',
      '-y',
      '50',
      ...argv,
    ]);
  }

  /** A window in the background running `argv`, tagged with `tag`; returns its id (`@3`). */
  async newWindow(
    session: string,
    window: string,
    cwd: string,
    argv: string[],
    tag?: string,
  ): Promise<string> {
    const id = (
      await this.must([
        'new-window',
        '-d',
        '-P',
        '-F',
        '#{window_id}',
        '-t',
        `=${session}:`,
        '-n',
        window,
        '-c',
        cwd,
        ...argv,
      ])
    ).trim();
    if (tag !== undefined) await this.must(['set-option', '-w', '-t', id, '@ralph', tag]);
    return id;
  }

  /** The windows of a session: id, name and tag. */
  async windows(session: string): Promise<{ id: string; name: string; tag: string }[]> {
    const out = await this.must([
      'list-windows',
      '-t',
      `=${session}`,
      '-F',
      '#{window_id}\t#{window_name}\t#{@ralph}',
    ]);
    return out
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const [id = '', name = '', tag = ''] = line.split('\t');
        return { id, name, tag };
      });
  }

  async killWindow(id: string): Promise<void> {
    await this.run(['kill-window', '-t', id]);
  }

  /** The argv that attaches this terminal to a session (or switches to it inside tmux). */
  attachArgv(session: string): string[] {
    return this.env.TMUX === undefined || this.env.TMUX === ''
      ? ['tmux', 'attach-session', '-t', `=${session}`]
      : ['tmux', 'switch-client', '-t', `=${session}`];
  }
}

/** tmux is not installed (or not on the PATH). */
export class TmuxMissing extends Error {
  constructor() {
    super('tmux is not installed');
    this.name = 'TmuxMissing';
  }
}
