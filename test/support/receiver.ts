// A receiver of notifications on 127.0.0.1: it records every request (its path, headers and
// body) and answers as the test says: at once, with an error status, or never (a hang, whose
// end it records when the sender gives up).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** When the sender let go of a request left unanswered. */
  abandonedAt?: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** How the next requests are answered: a status, or `hang`. */
  answer: number | 'hang';
  /** Answers the next requests whose path matches with these, in turn, before `answer`. */
  script: { path: RegExp; status: number }[];
  close(): Promise<void>;
}

/** Starts a receiver (on `port`, to come back where one was). */
export async function startReceiver(port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const script: Receiver['script'] = [];
  const state = { answer: 200 as number | 'hang' };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const got: Received = { path: req.url ?? '/', headers: req.headers, body };
      received.push(got);
      const scripted = script.findIndex((s) => s.path.test(got.path));
      const status =
        scripted === -1 ? state.answer : (script.splice(scripted, 1)[0]?.status ?? 200);
      if (status === 'hang') {
        res.on('close', () => (got.abandonedAt = Date.now()));
        return;
      }
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    received,
    script,
    get answer() {
      return state.answer;
    },
    set answer(value: number | 'hang') {
      state.answer = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The bodies a receiver got, as JSON. */
export const bodies = (receiver: Receiver, path?: string) =>
  receiver.received
    .filter((r) => path === undefined || r.path === path)
    .map((r) => JSON.parse(r.body) as Record<string, unknown>);
