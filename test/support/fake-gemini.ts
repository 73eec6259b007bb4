import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ModelReply as Reply } from './fake-openai.js';

/** One model request the CLI sent (`…:streamGenerateContent`). */
export interface GeminiRequest {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: { contents?: { role: string; parts: Record<string, unknown>[] }[] };
}

/** A running fake of the Gemini API on 127.0.0.1. */
export interface FakeGemini {
  url: string;
  requests: GeminiRequest[];
  /** The keys of each list of models asked for (a login check's). */
  modelLists: string[];
  close(): Promise<void>;
}

/** The response of the last tool call the CLI ran, as it fed it back to the model. */
export function lastFunctionResponse(request: GeminiRequest): string | undefined {
  const parts = (request.body.contents ?? []).flatMap((c) => c.parts);
  const response = parts.filter((p) => p.functionResponse !== undefined).at(-1);
  return response === undefined ? undefined : JSON.stringify(response.functionResponse);
}

/** Everything the request carries of the conversation, as text. */
export const conversationOf = (request: GeminiRequest) =>
  JSON.stringify(request.body.contents ?? []);

const USAGE = {
  promptTokenCount: 1000,
  candidatesTokenCount: 100,
  totalTokenCount: 1100,
  cachedContentTokenCount: 200,
};

/**
 * Starts a fake of the Gemini API that the real gemini CLI can be pointed at with
 * GOOGLE_GEMINI_BASE_URL. `respond` decides each model reply (streamed as SSE like the real
 * API); the CLI's side requests (routing, next-speaker checks) get a plain answer.
 */
export async function startFakeGemini(
  respond: (request: GeminiRequest, index: number) => Reply,
  /** A key the API refuses, as Google's does: HTTP 400, API_KEY_INVALID. */
  options: { refusedKey?: string } = {},
): Promise<FakeGemini> {
  const requests: GeminiRequest[] = [];
  /** The list of models asked for (a login check's), each with the key it carried. */
  const modelLists: string[] = [];
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = req.url ?? '';
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.includes(':generateContent')) {
        json(200, {
          candidates: [
            {
              content: { role: 'model', parts: [{ text: '{"next_speaker": "user"}' }] },
              finishReason: 'STOP',
            },
          ],
          usageMetadata: USAGE,
        });
        return;
      }
      if (url.includes(':countTokens')) return json(200, { totalTokens: 10 });
      if (url.startsWith('/v1beta/models?')) {
        const key = String(req.headers['x-goog-api-key'] ?? '');
        modelLists.push(key);
        if (key === options.refusedKey)
          return json(400, {
            error: {
              code: 400,
              message: 'API key not valid. Please pass a valid API key.',
              status: 'INVALID_ARGUMENT',
              details: [{ reason: 'API_KEY_INVALID' }],
            },
          });
        return json(200, { models: [{ name: 'models/gemini-2.5-flash' }] });
      }
      if (!url.includes(':streamGenerateContent')) return json(404, { error: { code: 404 } });
      const text = Buffer.concat(chunks).toString('utf8');
      const request: GeminiRequest = {
        url,
        headers: req.headers,
        body: text === '' ? {} : (JSON.parse(text) as GeminiRequest['body']),
      };
      const index = requests.push(request) - 1;
      const reply = respond(request, index);
      if (reply.kind === 'error') {
        json(reply.status, {
          error: { code: reply.status, message: reply.message, status: reply.type ?? 'ERROR' },
        });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (reply.kind === 'stall') {
        open.add(res);
        res.on('close', () => open.delete(res));
        return;
      }
      // Text comes in two chunks, as the real API streams it; the usage comes with the last.
      const half = reply.kind === 'text' ? Math.ceil(reply.text.length / 2) : 0;
      const pieces =
        reply.kind === 'text'
          ? [[{ text: reply.text.slice(0, half) }], [{ text: reply.text.slice(half) }]]
          : [[{ functionCall: { name: 'run_shell_command', args: { command: reply.command } } }]];
      const events = pieces.map((parts, i) => {
        const last = i === pieces.length - 1;
        return `data: ${JSON.stringify({
          candidates: [
            {
              content: { role: 'model', parts },
              ...(last ? { finishReason: 'STOP' } : {}),
              index: 0,
            },
          ],
          ...(last ? { usageMetadata: USAGE } : {}),
          modelVersion: 'gemini-2.5-flash',
        })}\n\n`;
      });
      res.end(events.join(''));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    modelLists,
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
