import { spawn, type ChildProcess } from 'node:child_process';
import { which } from '../lib/which.js';

/** What the machine is asked: no suspend and no idle sleep while an agent works. */
const INHIBIT = [
  '--what=sleep:idle',
  '--who=ralph',
  '--why=agents are at work',
  '--mode=block',
  // Holds the lock until its input ends: with ralph's end, however it ends, the lock goes too.
  'cat',
];

/** How long the lock outlives the last session: the next item of a busy night takes it over. */
const LINGER_MS = 10_000;

/**
 * Keeps the machine awake while sessions run: a `systemd-inhibit` lock taken with the first
 * running session and released shortly after the last (so an idle, paused or waiting night lets
 * the machine sleep). Where there is no inhibitor, or it refuses, the night goes on and says so
 * once.
 */
export class Awake {
  private keepers = 0;
  private lock: ChildProcess | undefined;
  private problem: string | undefined;
  private lingering: NodeJS.Timeout | undefined;

  private constructor(
    private readonly program: string | undefined,
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly onProblem: (problem: string) => void,
  ) {}

  /** The inhibitor found on PATH; its absence said through `onProblem` now. */
  static start(
    enabled: boolean,
    env: Readonly<Record<string, string | undefined>>,
    onProblem: (problem: string) => void,
  ): Awake {
    if (!enabled) return new Awake(undefined, env, onProblem);
    const program = which('systemd-inhibit', env.PATH);
    const awake = new Awake(program, env, onProblem);
    if (program === undefined)
      awake.fail('systemd-inhibit is not on PATH: the machine may suspend while agents work');
    return awake;
  }

  /** Keeps the machine awake until the returned release is called (once). */
  keep(): () => void {
    this.keepers += 1;
    clearTimeout(this.lingering);
    if (this.lock === undefined) this.take();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.keepers -= 1;
      if (this.keepers > 0) return;
      this.lingering = setTimeout(() => this.release(), LINGER_MS);
      this.lingering.unref();
    };
  }

  /** Releases the lock whoever holds it: the run is over. */
  close(): void {
    this.keepers = 0;
    clearTimeout(this.lingering);
    this.release();
  }

  private take(): void {
    if (this.program === undefined || this.problem !== undefined) return;
    const child = spawn(this.program, INHIBIT, {
      stdio: ['pipe', 'ignore', 'pipe'],
      detached: true,
      env: this.env,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-1024);
    });
    child.on('error', (error) => this.fail(`systemd-inhibit could not start: ${error.message}`));
    child.on('exit', (code) => {
      const ours = this.lock === child;
      if (ours) this.lock = undefined;
      // Refused (no logind in a container, say): not asked again this run.
      if (ours && code !== 0)
        this.fail(
          `systemd-inhibit refused (exit ${code ?? 'by a signal'}: ${stderr.trim() || 'no reason given'}): the machine may suspend while agents work`,
        );
    });
    this.lock = child;
  }

  private release(): void {
    const child = this.lock;
    this.lock = undefined;
    if (child === undefined) return;
    child.stdin?.end();
    if (child.pid !== undefined)
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Gone already.
      }
  }

  private fail(problem: string): void {
    if (this.problem !== undefined) return;
    this.problem = problem;
    this.onProblem(problem);
  }
}
