import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { RESULT_CHARS, oneLine, summariseToolInput } from '../../src/archive/transcript-rules.js';
import { formatDuration } from '../../src/lib/duration.js';
import type { ShownEvent } from './api.js';

type EventOf<K extends ShownEvent['kind']> = Extract<ShownEvent, { kind: K }>;
type ToolResult = EventOf<'tool_results'>['results'][number];

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

function Result({ result }: { result: EventOf<'result'>['result'] }) {
  const denials = result.permissionDenials;
  const ok = result.subtype === 'success' && !result.isError && denials.length === 0;
  const facts = [
    result.totalCostUsd === undefined ? undefined : `$${result.totalCostUsd.toFixed(4)}`,
    result.numTurns !== undefined
      ? `${result.numTurns} turn${result.numTurns === 1 ? '' : 's'}`
      : undefined,
    result.durationMs === undefined ? undefined : formatDuration(result.durationMs / 1000),
    denials.length > 0 ? `denied: ${denials.map((d) => d.toolName).join(', ')}` : undefined,
  ].filter((f) => f !== undefined);
  return (
    <div class={`line final ${ok ? 'ok' : 'bad'}`}>
      ═ result: {result.subtype}
      {result.isError ? ' (error)' : ''} · {facts.join(' · ')}
      {result.text !== undefined && result.text.trim() !== '' && <pre>{result.text.trim()}</pre>}
    </div>
  );
}

/** One line of the transcript, styled. */
const line = (key: string, cls: string, content: ComponentChildren) => (
  <div key={key} class={`line ${cls}`}>
    {content}
  </div>
);

/** An assistant message: its text, then each tool call in one line (its id named for later). */
function assistantLines(event: EventOf<'assistant'>, key: string, names: Map<string, string>) {
  const texts = event.texts.filter((t) => t.trim() !== '');
  const tools = event.toolUses;
  for (const tool of tools) names.set(tool.id, tool.name);
  return [
    ...texts.map((said, i) =>
      line(
        `${key}-t${i}`,
        'assistant',
        <>
          <span class="mark">assistant:</span> {said.trim()}
        </>,
      ),
    ),
    ...tools.map((tool) =>
      line(
        `${key}-${tool.id}`,
        'tool',
        <>
          <span class="mark">→ {tool.name}</span> {summariseToolInput(tool.name, tool.input)}
        </>,
      ),
    ),
  ];
}

/** The lines of one event; `names` maps tool call ids to tool names across events. */
function linesOf(event: ShownEvent, key: string, names: Map<string, string>) {
  switch (event.kind) {
    case 'init':
      return [
        line(
          key,
          'dim',
          `── ${text(event.cli)} session ${text(event.sessionId)}${event.model ? ` · ${text(event.model)}` : ''}`,
        ),
      ];
    case 'assistant':
      return assistantLines(event, key, names);
    case 'tool_results':
      return event.results.map((result) => (
        <ToolOutput
          key={`${key}-${result.toolUseId}`}
          name={names.get(result.toolUseId) ?? 'tool'}
          result={result}
        />
      ));
    case 'permission_denied':
      return [line(key, 'bad', `✗ permission denied: ${text(event.toolName, 'a tool')}`)];
    case 'api_retry':
      return [
        line(key, 'warn', `↻ API retry ${text(event.attempt, '?')}/${text(event.maxRetries, '?')}`),
      ];
    case 'rate_limit':
      return [
        line(
          key,
          event.status === 'rejected' ? 'bad' : 'dim',
          `⏸ usage limit ${text(event.status)}`,
        ),
      ];
    case 'result':
      return [<Result key={key} result={event.result} />];
    case 'issue':
      return [
        line(key, 'warn', `! ${text(event.issue).replace(/_/g, ' ')}: ${text(event.detail)}`),
      ];
    case 'other':
      return [line(key, 'dim', `· ${text(event.type)}`)];
    default:
      return [];
  }
}

/**
 * A session's parsed events as a transcript, by the rules of `ralph logs`: assistant text, each
 * tool call in one line, its output cut (expandable), refusals, retries, limits, the result.
 */
export function Transcript({
  events,
  follow = false,
}: {
  events: readonly ShownEvent[];
  /** Keep the newest line in view as lines come, unless the person scrolled up to read. */
  follow?: boolean;
}) {
  const names = new Map<string, string>();
  const lines = events.flatMap((event, index) =>
    linesOf(event, `${event.offset ?? ''}-${index}`, names),
  );
  const end = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  useEffect(() => {
    if (!follow) return;
    const onScroll = () => {
      atBottom.current = innerHeight + scrollY >= document.documentElement.scrollHeight - 80;
    };
    addEventListener('scroll', onScroll, { passive: true });
    return () => removeEventListener('scroll', onScroll);
  }, [follow]);
  useEffect(() => {
    if (follow && atBottom.current) end.current?.scrollIntoView({ block: 'end' });
  }, [follow, events.length]);
  return (
    <div class="transcript" ref={end}>
      {lines.length === 0 ? <div class="line dim">nothing yet</div> : lines}
    </div>
  );
}
