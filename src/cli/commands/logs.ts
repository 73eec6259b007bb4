import fs from 'node:fs';
import path from 'node:path';
import { sessionFiles } from '../../archive/paths.js';
import { COLOURS, PLAIN, TranscriptRenderer } from '../../archive/transcript.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { watchNames } from '../../lib/watch.js';
import { StreamParser } from '../../stream/parser.js';
import { openWorkspace } from '../open-workspace.js';
import type { Output } from '../output.js';
import { redactorFor } from '../redactor.js';
import { findSession } from '../session-lookup.js';

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
  const found = await findSession(workspace, ref);
  const files = sessionFiles(workspace.paths.sessions, found.sessionId);
  const redactor = redactorFor(workspace, env);
  const colour = output.isTTY && env.NO_COLOR === undefined && !options.json;
  const renderer = new TranscriptRenderer(colour ? COLOURS : PLAIN);
  const parser = new StreamParser((parsed) => {
    if (options.json) output.out(redactor.redact(JSON.stringify(parsed)));
    else for (const line of renderer.render(parsed)) output.out(redactor.redact(line));
  });
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
  try {
    drain();
    if (options.follow && found.live) {
      // The final record is written last: once it exists, the stream is complete.
      const ended = () => fs.existsSync(files.record);
      const names = [path.basename(files.stdout), path.basename(files.record)];
      while (!ended()) {
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
  return ExitCode.ok;
}
