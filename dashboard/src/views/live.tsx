import { plural } from '../../../src/lib/text.js';
import { formatDuration, money, since } from '../format.js';
import { useLive, useTick } from '../live.js';
import { Transcript } from '../transcript.js';

/** The running session as it happens: its transcript, tool calls, cost, time and idle time. */
export function Live() {
  const { health, session, lastEventAt } = useLive();
  const now = useTick(1000);
  const running = health?.running;
  const idleSince =
    running?.lastActivityAt ??
    (lastEventAt === undefined ? undefined : new Date(lastEventAt).toISOString());
  const idleSeconds =
    idleSince === undefined ? undefined : Math.max(0, (now - Date.parse(idleSince)) / 1000);
  const idleLimit = running?.limits?.idleTimeoutSeconds;
  // Counted from the stream itself: the runner writes its heartbeat only now and then.
  const assistant = session?.events.filter((e) => e.kind === 'assistant') ?? [];
  const tools = assistant.flatMap((e) => (e.toolUses as { name: string }[] | undefined) ?? []);
  const tokensOut = assistant.reduce(
    (sum, e) => sum + ((e.usage as { outputTokens?: number } | undefined)?.outputTokens ?? 0),
    0,
  );
  return (
    <section>
      {running ? (
        <div class="facts" data-session={running.sessionId}>
          <div>
            <b>{running.itemId}</b> “{running.itemTitle}” · session{' '}
            <a href={`#/sessions/${running.sessionId}`}>{running.sessionId}</a>
          </div>
          <div class="stats">
            <span>
              elapsed {since(running.startedAt, now)}
              {running.limits ? ` of ${formatDuration(running.limits.timeoutSeconds)}` : ''}
            </span>
            <span
              class={
                idleLimit !== undefined &&
                idleSeconds !== undefined &&
                idleSeconds > idleLimit * 0.8
                  ? 'bad'
                  : ''
              }
            >
              idle {idleSeconds === undefined ? '-' : formatDuration(idleSeconds)}
              {idleLimit === undefined ? '' : ` of ${formatDuration(idleLimit)}`}
            </span>
            <span>
              {plural(tools.length, 'tool call')}
              {tools.length > 0 ? ` (last: ${tools.at(-1)?.name ?? ''})` : ''}
            </span>
            <span>
              {plural(assistant.length, 'assistant message')}
              {tokensOut > 0 ? ` (${plural(tokensOut, 'token')} out)` : ''}
            </span>
            <span>
              {running.costUsd === undefined
                ? 'cost not reported yet'
                : `cost so far ${money(running.costUsd, 4)}`}
              {running.limits ? ` (cap ${money(running.limits.maxBudgetUsd)})` : ''}
            </span>
          </div>
        </div>
      ) : (
        <div class="facts">
          No session is running.
          {session ? ` The last one: ${session.item}, session ${session.id}.` : ''}
        </div>
      )}
      {session && <Transcript events={session.events} />}
    </section>
  );
}
