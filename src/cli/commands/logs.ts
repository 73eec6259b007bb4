import { failingGateOutput } from '../../archive/gate-output.js';
import { fallbackLines, sandboxLines } from '../../archive/report.js';
import fs from 'node:fs';
import { plural } from '../../lib/text.js';
import path from 'node:path';
import { sessionFiles } from '../../archive/paths.js';
import { COLOURS, PLAIN, TranscriptRenderer } from '../../archive/transcript.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { watchNames } from '../../lib/watch.js';
import { StreamParser } from '../../stream/parser.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { redactorFor } from '../../agent/redaction.js';
import {
  findSession,
  readRecord,
  sessionDecoder,
  sessionMayGrow,
  setupLogBefore,
} from '../../workspace/sessions.js';
import { gateVerdict } from '../../gates/gates.js';
import type { SessionRecord } from '../../archive/record.js';
import { readTail } from '../../lib/fs.js';

const CHUNK = 1024 * 1024;

/**
 * `ralph logs <session|item>`: the archived stream as a readable transcript (secrets masked),
 * `--raw` as it is, `--json` as parsed events; `--follow` tails a live session until it ends.
 */
export async function logsCommand(
  root: string,
  ref: string,
  options: { follow?: boolean; raw?: boolean; json?: boolean },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const workspace = await openWorkspace(root);
  const found = await findSession(workspace, ref, env);
  const files = sessionFiles(workspace.paths.sessions, found.sessionId);
  const header = await readRecord(workspace, found.sessionId).catch(() => undefined);
  // What the session's agent had is masked too, whatever secrets this shell holds.
  const redactor = redactorFor(workspace, env).withFingerprints(header?.secrets);
  const colour = output.isTTY && env.NO_COLOR === undefined && !options.json;
  const renderer = new TranscriptRenderer(colour ? COLOURS : PLAIN);
  const parser = new StreamParser(
    (parsed) => {
      if (options.json) output.out(redactor.redact(JSON.stringify(parsed)));
      else for (const line of renderer.render(parsed)) output.out(redactor.redact(line));
    },
    await sessionDecoder(workspace, found.sessionId),
  );
  const fd = fs.openSync(files.stdout, 'r');
  const buffer = Buffer.allocUnsafe(CHUNK);
  let position = 0;
  const drain = () => {
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, CHUNK, position);
      if (n <= 0) return;
      position += n;
      const bytes = buffer.subarray(0, n);
      if (options.raw) output.raw(Buffer.from(bytes));
      else parser.push(bytes);
    }
  };
  const human = !options.raw && !options.json;
  if (human && header !== undefined) {
    output.out(redactor.redact(sessionHeader(header)));
    for (const line of [...fallbackLines(header), ...sandboxLines(header)])
      output.out(redactor.redact(`── ${line}`));
    for (const m of header.messages ?? [])
      output.out(
        redactor.redact(
          `── message from ${m.from} at ${m.at}${m.live === true ? ' (while it ran)' : ''}: ${m.text}`,
        ),
      );
    const setup = await setupLogBefore(workspace, env, header);
    if (setup !== undefined) {
      const tail = await readTail(setup, SETUP_TAIL);
      output.out(`── its worktree was made ready first (${setup})${tail.cut ? ', its end:' : ':'}`);
      for (const line of tail.text
        .trimEnd()
        .split('\n')
        .slice(tail.cut ? 1 : 0))
        output.out(redactor.redact(`   ${line}`));
    }
  }
  try {
    drain();
    if (options.follow && found.live) {
      // The final record is written last: once it exists, the stream is complete. So is the
      // stream of a session whose runner and agent are both dead.
      const names = [path.basename(files.stdout), path.basename(files.record)];
      while (await sessionMayGrow(workspace, found.sessionId)) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, 250);
          const watcher = watchNames(workspace.paths.sessions, names, done);
          function done() {
            clearTimeout(timer);
            watcher?.close();
            resolve();
          }
        });
        drain();
      }
      drain();
    }
  } finally {
    fs.closeSync(fd);
  }
  if (!options.raw) {
    parser.finish();
    if (!options.json) for (const line of renderer.finish()) output.out(line);
  }
  if (human) {
    // A finished session's record was read for the header; a live one's end is read now.
    const record =
      header?.outcome !== undefined
        ? header
        : await readRecord(workspace, found.sessionId).catch(() => undefined);
    const stderr = await readTail(files.stderr, STDERR_TAIL);
    const grows =
      record?.outcome === undefined && (await sessionMayGrow(workspace, found.sessionId));
    const gateOutput = record === undefined ? [] : await failingGateOutput(record, files.gates);
    for (const line of verdict(record, grows, stderr.text, colour, gateOutput))
      output.out(redactor.redact(line));
  }
  return ExitCode.ok;
}

const STDERR_TAIL = 1024;
/** Of a setup's log: enough for its commands and the end of an install's output. */
const SETUP_TAIL = 2048;
const STDERR_LINES = 5;

/** Who ran the session: ralph's ids, which the agent's own stream does not know. */
function sessionHeader(record: SessionRecord): string {
  return `── ralph session ${record.sessionId} · item ${record.itemId} "${record.itemTitle}" · attempt ${record.attempt}${
    record.resumedFrom === undefined ? '' : ` · resumes ${record.cli} session ${record.resumedFrom}`
  }`;
}

/**
 * ralph's verdict on the session, which is not the agent's `result` (a refused tool still says
 * "success"): its status and outcome, how the process ended, and the end of its stderr.
 */
function verdict(
  record: SessionRecord | undefined,
  grows: boolean,
  stderr: string,
  colour: boolean,
  /** The end of the failing gate's output. */
  gateOutput: readonly string[],
): string[] {
  const style = colour ? COLOURS : PLAIN;
  if (record === undefined || record.outcome === undefined)
    return [
      style.dim(
        grows
          ? '── still running (ralph logs --follow follows it to its end)'
          : '── its runner died before settling it: the next ralph run settles it',
      ),
    ];
  const exit =
    record.exit === undefined
      ? undefined
      : record.exit.signal
        ? `killed by ${record.exit.signal}`
        : `exit code ${record.exit.code}`;
  const facts = [
    `${record.outcome.kind}: ${record.outcome.message}`,
    exit,
    record.stopReason === undefined ? undefined : `stopped by ralph: ${record.stopReason}`,
  ].filter((f) => f !== undefined);
  const head = `═ ralph: ${record.status} · ${facts.join(' · ')}`;
  const lines = [record.outcome.kind === 'success' ? style.green(head) : style.red(head)];
  for (const gate of record.gates ?? []) {
    const line = `  gate ${gate.name}: ${gate.passed ? 'passed' : 'FAILED'} (${gateVerdict(gate)})`;
    lines.push(gate.passed ? line : style.red(line));
    if (!gate.passed) lines.push(...gateOutput.map((l) => `    ${l}`));
  }
  if (record.git !== undefined)
    lines.push(
      style.dim(
        `  branch ${record.git.branch}: ${plural(record.git.commits.length, 'commit')} since ${record.git.base.slice(0, 12)}${record.git.diffstat === '' ? ', no changes' : `, ${record.git.diffstat}`}`,
      ),
    );
  if (stderr.trim() !== '') {
    const tail = stderr.trim().split('\n').slice(-STDERR_LINES);
    lines.push(style.dim('  stderr (the end):'), ...tail.map((l) => `  ${l}`));
  }
  return lines;
}
