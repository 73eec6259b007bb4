import type { Output } from '../../src/cli/output.js';

/** An Output that records what a command printed. */
export function captureOutput(
  isTTY = false,
): Output & { stdout: string[]; stderr: string[]; text(): string } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    isTTY,
    out: (text) => stdout.push(text),
    err: (text) => stderr.push(text),
    raw: (bytes) => stdout.push(bytes.toString('utf8')),
    text: () => [...stdout, ...stderr].join('\n'),
  };
}
