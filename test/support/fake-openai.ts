import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One model request a CLI sent to the fake API. */
export interface OpenAiRequest {
  /** `responses` (codex) or `chat` (an OpenAI-compatible chat API: opencode, pi). */
  api: 'responses' | 'chat';
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** What a fake model API (OpenAI's or Gemini's) answers to one model request. */
export type ModelReply =
  | { kind: 'text'; text: string }
  /** A call of the CLI's shell tool with this command line. */
  | { kind: 'shell'; command: string }
  | { kind: 'error'; status: number; message: string; type?: string }
  /** Starts the stream and then says nothing more (a stalled API). */
  | { kind: 'stall' };

/** A running fake of the OpenAI APIs on 127.0.0.1. */
export interface FakeOpenAi {
  /** The base URL, ending in `/v1`. */
  url: string;
  /** Model requests only (`POST …/responses` and `POST …/chat/completions`). */
  requests: OpenAiRequest[];
  close(): Promise<void>;
}

/** Tokens of every reply: 1000 in (200 of them cached), 100 out. */
const TOKENS = { input: 1000, cached: 200, output: 100 };

type Item = Record<string, unknown>;

/** The conversation a request carries: Responses input items, or chat messages. */
export function inputItems(request: OpenAiRequest): Item[] {
  const items = request.api === 'chat' ? request.body.messages : request.body.input;
  return (items as Item[] | undefined) ?? [];
}

/** The output of the last tool call the CLI ran, as it fed it back to the model. */
export function lastToolOutput(request: OpenAiRequest): string | undefined {
  const outputs = inputItems(request).flatMap((item) =>
    item.type === 'function_call_output'
      ? [item.output]
      : item.role === 'tool'
        ? [item.content]
        : [],
  );
  if (outputs.length === 0) return undefined;
  const output = outputs.at(-1);
  return typeof output === 'string' ? output : JSON.stringify(output);
}

type Send = (data: Record<string, unknown>, event?: string) => void;

/** A reply as Responses API events (codex's shell tool is `exec_command`). */
function responsesReply(send: Send, reply: ModelReply & { kind: 'text' | 'shell' }, index: number) {
  const id = `resp_${index}`;
  const item =
    reply.kind === 'text'
      ? {
          type: 'message',
          id: `msg_${index}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: reply.text, annotations: [] }],
        }
      : {
          type: 'function_call',
          id: `fc_${index}`,
          call_id: `call_${index}`,
          name: 'exec_command',
          arguments: JSON.stringify({ cmd: reply.command }),
          status: 'completed',
        };
  const event = (type: string, data: Record<string, unknown>) => send({ type, ...data }, type);
  event('response.output_item.added', { output_index: 0, item });
  event('response.output_item.done', { output_index: 0, item });
  event('response.completed', {
    response: {
      id,
      status: 'completed',
      usage: {
        input_tokens: TOKENS.input,
        input_tokens_details: { cached_tokens: TOKENS.cached },
        output_tokens: TOKENS.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: TOKENS.input + TOKENS.output,
      },
    },
  });
}

/** A reply as chat completion chunks (the shell tool of opencode and pi is `bash`). */
function chatReply(send: Send, reply: ModelReply & { kind: 'text' | 'shell' }, index: number) {
  const chunk = (delta: Item, finish: string | null) =>
    send({
      id: `chatcmpl-${index}`,
      object: 'chat.completion.chunk',
      created: 0,
      model: 'fake-model',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  if (reply.kind === 'text') {
    // In two pieces, as a real stream comes.
    const half = Math.ceil(reply.text.length / 2);
    chunk({ role: 'assistant', content: reply.text.slice(0, half) }, null);
    chunk({ content: reply.text.slice(half) }, null);
    chunk({}, 'stop');
  } else {
    const call = {
      index: 0,
      id: `call_${index}`,
      type: 'function',
      function: {
        name: 'bash',
        arguments: JSON.stringify({ command: reply.command, description: 'run a command' }),
      },
    };
    chunk({ role: 'assistant', tool_calls: [call] }, null);
    chunk({}, 'tool_calls');
  }
  send({
    id: `chatcmpl-${index}`,
    object: 'chat.completion.chunk',
    created: 0,
    model: 'fake-model',
    choices: [],
    usage: {
      prompt_tokens: TOKENS.input,
      completion_tokens: TOKENS.output,
      total_tokens: TOKENS.input + TOKENS.output,
      prompt_tokens_details: { cached_tokens: TOKENS.cached },
    },
  });
}

/**
 * Starts a fake of the OpenAI Responses API (codex, through a model provider of its own) and of
 * the chat completions API (opencode and pi, through a provider with a base URL). `respond`
 * decides each reply; replies stream as SSE like the real APIs.
 */
export async function startFakeOpenAi(
  respond: (request: OpenAiRequest, index: number) => ModelReply,
): Promise<FakeOpenAi> {
  const requests: OpenAiRequest[] = [];
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = req.url ?? '';
      const api = url.endsWith('/responses')
        ? 'responses'
        : url.endsWith('/chat/completions')
          ? 'chat'
          : undefined;
      if (req.method !== 'POST' || api === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"not found"}}');
        return;
      }
      const text = Buffer.concat(chunks).toString('utf8');
      const request: OpenAiRequest = {
        api,
        url,
        headers: req.headers,
        body: text === '' ? {} : (JSON.parse(text) as Item),
      };
      const index = requests.push(request) - 1;
      const reply = respond(request, index);
      if (reply.kind === 'error') {
        // As the real API says how long to wait: a CLI that retries does so at once.
        res.writeHead(reply.status, { 'content-type': 'application/json', 'retry-after-ms': '50' });
        res.end(
          JSON.stringify({
            error: { message: reply.message, type: reply.type ?? 'error', code: reply.type },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send: Send = (data, event) =>
        res.write(
          `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`,
        );
      if (api === 'responses')
        send({ type: 'response.created', response: { id: `resp_${index}` } }, 'response.created');
      if (reply.kind === 'stall') {
        open.add(res);
        res.on('close', () => open.delete(res));
        return;
      }
      if (api === 'responses') responsesReply(send, reply, index);
      else {
        chatReply(send, reply, index);
        res.write('data: [DONE]\n\n');
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
