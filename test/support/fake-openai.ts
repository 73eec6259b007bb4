import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a CLI sent to the fake API. */
export interface OpenAiRequest {
  method: string;
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

/** A running fake of the OpenAI Responses API on 127.0.0.1. */
export interface FakeOpenAi {
  /** The base URL, ending in `/v1`. */
  url: string;
  /** Model requests only (`POST …/responses`). */
  requests: OpenAiRequest[];
  close(): Promise<void>;
}

const USAGE = {
  input_tokens: 1000,
  input_tokens_details: { cached_tokens: 200 },
  output_tokens: 100,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 1100,
};

/** The input items of a request, as codex sends them. */
export function inputItems(request: OpenAiRequest): Record<string, unknown>[] {
  return (request.body.input as Record<string, unknown>[] | undefined) ?? [];
}

/** The output of the last tool call the CLI ran, as it fed it back to the model. */
export function lastToolOutput(request: OpenAiRequest): string | undefined {
  const output = inputItems(request)
    .filter((item) => item.type === 'function_call_output')
    .at(-1)?.output;
  return typeof output === 'string' ? output : JSON.stringify(output);
}

/** Whether the request carries the output of a tool call (the model's tool ran). */
export const hasToolOutput = (request: OpenAiRequest) => lastToolOutput(request) !== undefined;

/**
 * Starts a fake of the Responses API that codex is pointed at through a custom model provider
 * (`-c model_providers.<name>.base_url=…`). `respond` decides each reply; replies stream as SSE
 * like the real API.
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
      const text = Buffer.concat(chunks).toString('utf8');
      if (req.method !== 'POST' || !(req.url ?? '').endsWith('/responses')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"not found"}}');
        return;
      }
      const request: OpenAiRequest = {
        method: req.method,
        url: req.url ?? '',
        headers: req.headers,
        body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      };
      const index = requests.push(request) - 1;
      const reply = respond(request, index);
      if (reply.kind === 'error') {
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { message: reply.message, type: reply.type ?? 'error', code: reply.type },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (type: string, data: Record<string, unknown>) =>
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      const id = `resp_${index}`;
      send('response.created', { response: { id, status: 'in_progress' } });
      if (reply.kind === 'stall') {
        open.add(res);
        res.on('close', () => open.delete(res));
        return;
      }
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
      send('response.output_item.added', { output_index: 0, item });
      send('response.output_item.done', { output_index: 0, item });
      send('response.completed', { response: { id, status: 'completed', usage: USAGE } });
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

/** Tokens of every reply of the fake: what a session of n replies reports. */
export const REPLY_USAGE = { input: 1000, cachedInput: 200, output: 100 };
