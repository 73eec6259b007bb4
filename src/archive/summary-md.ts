import { formatDuration } from '../lib/duration.js';
import { plural } from '../lib/text.js';
import type { SessionRecord } from './record.js';
import { costLine, fallbackLines, sessionOpeningLines } from './report.js';

/** The human-readable `<id>-summary.md` of a finished session. */
export function sessionSummaryMarkdown(
  record: SessionRecord,
  lastText: string | undefined,
): string {
  const started = Date.parse(record.startedAt);
  const ended = record.endedAt === undefined ? undefined : Date.parse(record.endedAt);
  const seconds = ended === undefined ? undefined : (ended - started) / 1000;
  const result = record.result;
  const lines = [
    `# Session ${record.sessionId}`,
    '',
    `- Item: **${record.itemId}** — ${record.itemTitle}`,
    `- Outcome: **${record.outcome?.kind ?? record.status}** (${record.status})${
      record.outcome ? ` — ${record.outcome.message}` : ''
    }`,
    `- Attempt: ${record.attempt}, iteration ${record.iteration}`,
    `- Started: ${record.startedAt}${seconds === undefined ? '' : `, ran ${formatDuration(seconds)}`}`,
    `- Cost: ${costLine(record)}${
      result?.numTurns === undefined ? '' : `, ${plural(result.numTurns, 'turn')}`
    }, ${record.heartbeat.assistantMessages} assistant messages, ${record.heartbeat.toolCalls} tool calls`,
    `- Agent: ${record.cli}, session ${record.conversationId ?? '(none reported)'}${
      record.resumedFrom ? ` (resumed)` : ''
    }${record.model ? `, model ${record.model}` : ''}`,
    ...fallbackLines(record).map((line) => `- ${line}`),
    ...sessionOpeningLines(record).map((line) => `- ${line}`),
    `- Work dir: ${record.workDir}`,
  ];
  if (record.exit) {
    lines.push(
      `- Exit: ${record.exit.signal ? `signal ${record.exit.signal}` : `code ${record.exit.code}`}${
        record.stopReason ? ` (stopped by ralph: ${record.stopReason})` : ''
      }`,
    );
  }
  if (record.yolo) lines.push('- **Permission checks were skipped (yolo).**');
  if (result && result.permissionDenials.length > 0) {
    lines.push(
      `- Permission denials: ${result.permissionDenials.map((d) => d.toolName).join(', ')}`,
    );
  }
  const issues = Object.entries(record.streamIssues ?? {});
  if (issues.length > 0) {
    lines.push(`- Stream issues: ${issues.map(([k, n]) => `${k} ×${n}`).join(', ')}`);
  }
  if (record.killedProcesses && record.killedProcesses.length > 0) {
    lines.push(`- Left-over processes killed: ${record.killedProcesses.length}`);
  }
  const finalText = result?.text ?? lastText;
  if (finalText) lines.push('', '## Final message', '', finalText);
  lines.push(
    '',
    '## Files',
    '',
    `- stream: ${record.files.stdout}`,
    `- stderr: ${record.files.stderr}`,
    `- prompt: ${record.files.prompt}`,
    `- record: ${record.files.record}`,
    '',
  );
  return lines.join('\n');
}
