import { useState } from 'preact/hooks';
import { RESULT_CHARS, oneLine, summariseToolInput } from '../../src/archive/transcript-rules.js';
import { formatDuration } from '../../src/lib/duration.js';
import type { StreamEvent } from './api.js';

interface ToolUse {
  id: string;
  name: string;
  input: unknown;
}
interface ToolResult {
  toolUseId: string;
  isError: boolean;
  text: string;
}

/** A field of an event as text (a number or a string; anything else is `fallback`). */
const text = (value: unknown, fallback = '') =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : fallback;

/** A tool's output: cut as `ralph logs` cuts it, the whole text a click away. */
function ToolOutput({ name, result }: { name: string; result: ToolResult }) {
  const [open, setOpen] = useState(false);
  const short = oneLine(result.text, RESULT_CHARS) || '(no output)';
  const cut = short !== result.text.trim() && result.text.trim() !== '';
  return (
    <div class={`line result${result.isError ? ' error' : ''}`}>
      <span class="mark">
        ← {name}
        {result.isError ? ' error' : ''}:
      </span>{' '}
      {open ? <pre>{result.text}</pre> : short}
      {cut && (
        <button class="link" onClick={() => setOpen(!open)}>
          {open ? 'less' : 'all'}
        </button>
      )}
    </div>
  );
}

function Result({ result }: { result: Record<string, unknown> }) {
  const denials = (result.permissionDenials as { toolName: string }[] | undefined) ?? [];
  const ok = result.subtype === 'success' && result.isError !== true && denials.length === 0;
  const facts = [
    typeof result.totalCostUsd === 'number' ? `$${result.totalCostUsd.toFixed(4)}` : undefined,
    typeof result.numTurns === 'number'
      ? `${result.numTurns} turn${result.numTurns === 1 ? '' : 's'}`
      : undefined,
    typeof result.durationMs === 'number' ? formatDuration(result.durationMs / 1000) : undefined,
    denials.length > 0 ? `denied: ${denials.map((d) => d.toolName).join(', ')}` : undefined,
  ].filter((f) => f !== undefined);
  return (
    <div class={`line final ${ok ? 'ok' : 'bad'}`}>
      ═ result: {String(result.subtype)}
      {result.isError === true ? ' (error)' : ''} · {facts.join(' · ')}
      {typeof result.text === 'string' && result.text.trim() !== '' && (
        <pre>{result.text.trim()}</pre>
      )}
    </div>
  );
}

/**
 * A session's parsed events as a transcript, by the rules of `ralph logs`: assistant text, each
 * tool call in one line, its output cut (expandable), refusals, retries, limits, the result.
 */
export function Transcript({ events }: { events: readonly StreamEvent[] }) {
  const names = new Map<string, string>();
  const lines = events.flatMap((event, index) => {
    const key = `${event.offset ?? ''}-${index}`;
    switch (event.kind) {
      case 'init':
        return [
          <div key={key} class="line dim">
            ── claude session {text(event.sessionId)}
            {event.model ? ` · ${text(event.model)}` : ''}
          </div>,
        ];
      case 'assistant': {
        const texts = (event.texts as string[]).filter((t) => t.trim() !== '');
        const tools = event.toolUses as ToolUse[];
        for (const tool of tools) names.set(tool.id, tool.name);
        return [
          ...texts.map((text, i) => (
            <div key={`${key}-t${i}`} class="line assistant">
              <span class="mark">assistant:</span> {text.trim()}
            </div>
          )),
          ...tools.map((tool) => (
            <div key={`${key}-${tool.id}`} class="line tool">
              <span class="mark">→ {tool.name}</span> {summariseToolInput(tool.name, tool.input)}
            </div>
          )),
        ];
      }
      case 'tool_results':
        return (event.results as ToolResult[]).map((result) => (
          <ToolOutput
            key={`${key}-${result.toolUseId}`}
            name={names.get(result.toolUseId) ?? 'tool'}
            result={result}
          />
        ));
      case 'permission_denied':
        return [
          <div key={key} class="line bad">
            ✗ permission denied: {text(event.toolName, 'a tool')}
          </div>,
        ];
      case 'api_retry':
        return [
          <div key={key} class="line warn">
            ↻ API retry {text(event.attempt, '?')}/{text(event.maxRetries, '?')}
          </div>,
        ];
      case 'rate_limit':
        return [
          <div key={key} class={`line ${event.status === 'rejected' ? 'bad' : 'dim'}`}>
            ⏸ usage limit {text(event.status)}
          </div>,
        ];
      case 'result':
        return [<Result key={key} result={event.result as Record<string, unknown>} />];
      case 'issue':
        return [
          <div key={key} class="line warn">
            ! {text(event.issue).replace(/_/g, ' ')}: {text(event.detail)}
          </div>,
        ];
      case 'other':
        return [
          <div key={key} class="line dim">
            · {text(event.type)}
          </div>,
        ];
      default:
        return [];
    }
  });
  return (
    <div class="transcript">
      {lines.length === 0 ? <div class="line dim">nothing yet</div> : lines}
    </div>
  );
}
