import { createHmac } from 'node:crypto';
import type { NotifierConfig } from './config-schema.js';
import { runCommand } from '../lib/command.js';
import type { NotifyMessage } from './message.js';

/** A try that failed, and when the receiver asked to be tried again (a 429's Retry-After). */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

export interface SendOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** Ends the try (its timeout, or the runner stopping). */
  signal: AbortSignal;
  /** Where the command notifier runs. */
  cwd: string;
  timeoutMs: number;
  /** The entry's id: a receiver that sees it twice knows it is the same message. */
  id: string;
}

/** A value from the variable a setting names; its absence is said with the variable's name. */
function fromEnv(env: SendOptions['env'], name: string, setting: string): string {
  const value = env[name];
  if (value === undefined || value === '')
    throw new DeliveryError(`${name} (${setting}) is not set`);
  return value;
}

/** Why a request failed, without its URL (a Slack or ntfy URL is a secret of its own). */
function networkReason(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'no answer in time';
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return `cannot be reached (${cause.code})`;
  // fetch's own refusals (a port it will not use, say) carry a message and no code.
  if (typeof cause?.message === 'string') return `cannot be reached (${cause.message})`;
  return `cannot be reached (${error instanceof Error ? error.name : 'error'})`;
}

async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'user-agent': 'ralph', 'x-ralph-delivery': options.id, ...headers },
      signal: options.signal,
      redirect: 'error',
    });
  } catch (error) {
    throw new DeliveryError(networkReason(error, options.signal));
  }
  // The answer's body is not read into any message: a receiver may echo what it was sent.
  await response.body?.cancel().catch(() => undefined);
  if (response.ok) return;
  const after = Number(response.headers.get('retry-after'));
  throw new DeliveryError(
    `answered HTTP ${response.status}`,
    Number.isFinite(after) && after > 0 ? after * 1000 : undefined,
  );
}

/**
 * Sends a message through a notifier: a JSON webhook (signed when `secretEnv` is set), a
 * Slack incoming webhook, an ntfy topic (its JSON publishing, which carries any text), or a
 * command given the message as JSON on its standard input.
 */
export async function send(
  notifier: NotifierConfig,
  message: NotifyMessage,
  options: SendOptions,
): Promise<void> {
  const kind = message.events[0] ?? 'test';
  if (notifier.kind === 'command') {
    const result = await runCommand({
      argv: notifier.command,
      cwd: options.cwd,
      env: {
        ...options.env,
        RALPH_EVENT: kind,
        RALPH_TITLE: message.title,
      },
      input: JSON.stringify({ id: options.id, ...message }),
      timeoutMs: options.timeoutMs,
      killGraceMs: 1000,
      maxOutputBytes: 16_384,
      signal: options.signal,
    });
    if (result.startError !== undefined)
      throw new DeliveryError(`cannot be started: ${result.startError}`);
    if (result.timedOut || result.stopped) throw new DeliveryError('no answer in time');
    if (result.code !== 0)
      throw new DeliveryError(
        `exited ${result.code ?? result.signal}${result.stderr.trim() === '' ? '' : `: ${result.stderr.trim().split('\n').at(-1)?.slice(0, 200)}`}`,
      );
    return;
  }
  const url = notifier.url ?? fromEnv(options.env, notifier.urlEnv ?? '', 'urlEnv');
  const json = { 'content-type': 'application/json' };
  switch (notifier.kind) {
    case 'webhook': {
      const body = JSON.stringify({ id: options.id, event: kind, ...message });
      const secret =
        notifier.secretEnv === undefined
          ? undefined
          : fromEnv(options.env, notifier.secretEnv, 'secretEnv');
      const signature: Record<string, string> =
        secret === undefined
          ? {}
          : {
              'x-ralph-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
            };
      return post(url, body, { ...json, 'x-ralph-event': kind, ...signature }, options);
    }
    case 'slack':
      return post(
        url,
        JSON.stringify({ text: `*${message.title}*\n${message.text}` }),
        json,
        options,
      );
    case 'ntfy': {
      // ntfy's JSON publishing goes to the server's root, the topic in the body.
      const at = new URL(url);
      const topic =
        at.pathname
          .split('/')
          .filter((p) => p !== '')
          .at(-1) ?? '';
      at.pathname = at.pathname.slice(0, at.pathname.lastIndexOf(topic));
      const token: Record<string, string> =
        notifier.tokenEnv === undefined
          ? {}
          : { authorization: `Bearer ${fromEnv(options.env, notifier.tokenEnv, 'tokenEnv')}` };
      return post(
        at.toString(),
        JSON.stringify({
          topic,
          title: message.title,
          message: message.text,
          tags: [kind],
          ...(notifier.priority === undefined ? {} : { priority: notifier.priority }),
        }),
        { ...json, ...token },
        options,
      );
    }
  }
}
