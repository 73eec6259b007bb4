import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the CLI sent to the fake API. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: {
    model?: string;
    system?: { type: string; text: string }[] | string;
    messages?: { role: string; content: unknown }[];
  };
}

/** A message's token counts as the API reports them (the fake's own, when not given). */
export interface ReplyUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** What the fake API answers to one Messages request. */
export type Reply =
  /** `headers`: sent with the stream (a subscription's usage of its window, say). */
  | { kind: 'text'; text: string; headers?: Record<string, string>; usage?: ReplyUsage }
  | { kind: 'tool_use'; name: string; input: Record<string, unknown>; usage?: ReplyUsage }
  | {
      kind: 'error';
      status: number;
      type: string;
      message: string;
      headers?: Record<string, string>;
    }
  /** Starts the stream and then says nothing more (a stalled API). */
  | { kind: 'stall' };

/** A running fake Anthropic Messages API on 127.0.0.1. */
export interface FakeAnthropic {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A subscription's usage limit as the API answers it: refused, with when it resets (epoch s). */
export function usageLimitReply(resetS: number, claim?: string): Reply {
  return {
    kind: 'error',
    status: 429,
    type: 'rate_limit_error',
    message: 'rate limited',
    headers: {
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': String(resetS),
      ...(claim === undefined ? {} : { 'anthropic-ratelimit-unified-representative-claim': claim }),
    },
  };
}

/**
 * Whether the last user message of a request carries a tool result (the model's tool ran).
 * With --max-budget-usd the CLI appends a `system` message with the budget after it.
 */
export function lastIsToolResult(request: RecordedRequest): boolean {
  const last = request.body.messages?.filter((m) => m.role === 'user').at(-1);
  return JSON.stringify(last?.content ?? '').includes('"tool_result"');
}

/** The system prompt text the CLI sent, joined. */
export function systemText(request: RecordedRequest): string {
  const system = request.body.system;
  if (typeof system === 'string') return system;
  return (system ?? []).map((block) => block.text).join('\n');
}

/**
 * What ralph told the CLI, as the request carries it: its system prompt, then its messages' text
 * (claude's first message holds the item's assignment).
 */
export function requestText(request: RecordedRequest): string {
  const messages = (request.body.messages ?? []).map((m) =>
    typeof m.content === 'string'
      ? m.content
      : (m.content as { text?: unknown }[])
          .map((c) => (typeof c.text === 'string' ? c.text : ''))
          .join('\n'),
  );
  return [systemText(request), ...messages].join('\n');
}

/**
 * Starts a fake of the Messages API that the real claude CLI can be pointed at with
 * ANTHROPIC_BASE_URL. `respond` decides each reply; replies stream as SSE like the real API.
 */
export async function startFakeAnthropic(
  respond: (request: RecordedRequest, index: number) => Reply,
  options: { refusedKey?: string } = {},
): Promise<FakeAnthropic> {
  const requests: RecordedRequest[] = [];
  const open = new Set<http.ServerResponse>();
  let messages = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: text === '' ? {} : (JSON.parse(text) as RecordedRequest['body']),
      };
      requests.push(recorded);
      // A key the API does not know: every request refused, as the real API does.
      if (options.refusedKey !== undefined && req.headers['x-api-key'] === options.refusedKey) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            type: 'error',
            error: { type: 'authentication_error', message: 'invalid x-api-key' },
          }),
        );
        return;
      }
      if (req.method !== 'POST' || !(req.url ?? '').startsWith('/v1/messages')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
        return;
      }
      const index = messages++;
      const reply = respond(recorded, index);
      if (reply.kind === 'error') {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(
          JSON.stringify({ type: 'error', error: { type: reply.type, message: reply.message } }),
        );
        return;
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        ...(reply.kind === 'text' ? reply.headers : {}),
      });
      const send = (event: string, data: unknown) =>
        res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      const usage = reply.kind === 'text' || reply.kind === 'tool_use' ? reply.usage : undefined;
      send('message_start', {
        type: 'message_start',
        message: {
          id: `msg_${index}`,
          type: 'message',
          role: 'assistant',
          model: recorded.body.model ?? 'claude-test',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: 100,
            output_tokens: 1,
            ...usage,
          },
        },
      });
      if (reply.kind === 'stall') {
        open.add(res);
        res.on('close', () => open.delete(res));
        return;
      }
      if (reply.kind === 'text') {
        send('content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'text', text: '' },
        });
        send('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: reply.text },
        });
      } else {
        send('content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: `toolu_${index}`, name: reply.name, input: {} },
        });
        send('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.input) },
        });
      }
      send('content_block_stop', { type: 'content_block_stop', index: 0 });
      send('message_delta', {
        type: 'message_delta',
        delta: {
          stop_reason: reply.kind === 'text' ? 'end_turn' : 'tool_use',
          stop_sequence: null,
        },
        usage: {
          output_tokens: usage?.output_tokens ?? 20,
        },
      });
      send('message_stop', { type: 'message_stop' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The environment that points the real CLI at the fake API, offline, in a throw-away HOME. */
export function claudeEnv(api: FakeAnthropic, home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: 'sk-ant-test-dummy-key-0123456789',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
  };
}
