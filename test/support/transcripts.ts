import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cliNamed } from '../../src/agent/clis/index.js';
import type { CliName } from '../../src/config/cli-names.js';
import { StreamParser, type ParsedLine } from '../../src/stream/parser.js';
import { applyToSummary, emptySummary, type StreamSummary } from '../../src/stream/summary.js';

/**
 * A recorded stream of a CLI (`test/fixtures/transcripts/<cli>/<name>.ndjson`) read through the
 * CLI's decoder: its events and the summary the supervisor would have kept.
 */
export function readTranscript(
  cli: Exclude<CliName, 'claude'>,
  name: string,
): { lines: ParsedLine[]; summary: StreamSummary } {
  const summary = emptySummary();
  const lines: ParsedLine[] = [];
  const parser = new StreamParser((line) => {
    lines.push(line);
    applyToSummary(summary, line, 0);
  }, cliNamed(cli).decoder());
  parser.push(
    fs.readFileSync(
      fileURLToPath(new URL(`../fixtures/transcripts/${cli}/${name}.ndjson`, import.meta.url)),
    ),
  );
  parser.finish();
  return { lines, summary };
}
