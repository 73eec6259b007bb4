import type { MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { cookieName, tokenMatches } from './token.js';

/** Host names that always mean this machine. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The host part of a `Host` header value (`[::1]:7420` → `[::1]`). */
function hostName(host: string): string {
  const bracket = host.startsWith('[') ? host.indexOf(']') : -1;
  if (bracket !== -1) return host.slice(0, bracket + 1).toLowerCase();
  const colon = host.lastIndexOf(':');
  return (colon === -1 ? host : host.slice(0, colon)).toLowerCase();
}

/**
 * Which `Host` names a server answers: loopback names when it is bound to loopback (any port:
 * an SSH tunnel may forward another), the bound address otherwise, every address of the machine
 * (and its name) when bound to all of them, and the names given. A name outside the set is a
 * DNS-rebinding page and gets 403.
 */
export function allowedHosts(
  bound: string,
  extra: readonly string[],
  machine: { name: string; addresses: readonly string[] },
): Set<string> {
  const bracketed = (address: string) => (address.includes(':') ? `[${address}]` : address);
  const names = new Set(extra.map((name) => name.toLowerCase()));
  const everywhere = bound === '0.0.0.0' || bound === '::';
  if (everywhere || bound === '127.0.0.1' || bound === '::1' || bound === 'localhost')
    for (const name of LOOPBACK) names.add(name);
  if (everywhere) {
    names.add(machine.name.toLowerCase());
    for (const address of machine.addresses) names.add(bracketed(address));
  } else names.add(bracketed(bound));
  return names;
}

export interface GuardOptions {
  token: string;
  hosts: Set<string>;
  /**
   * Origins a proxy in front of the server serves the dashboard at (`--public-origin`,
   * `https://night.example.ts.net`), besides `http://` and the Host asked for.
   */
  publicOrigins: ReadonlySet<string>;
}

/**
 * A refusal, sent before the request's body is read: the connection closes with it, so that
 * unread body bytes are not taken for the next request on a kept-alive connection.
 */
export const refusal = (status: 401 | 403, error: string) =>
  new Response(JSON.stringify({ error }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', connection: 'close' },
  });

/**
 * Every request passes here: a `Host` this server answers to, an `Origin` (when a browser sends
 * one) of that same host, and the token, as a bearer header or the dashboard's cookie. A page
 * opened with `?token=` gets the cookie (HttpOnly, SameSite=Strict) and is sent on without it,
 * so the token leaves the address bar and the history.
 */
/** The page a browser gets without the token, instead of a JSON error. */
const SIGN_IN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>ralph: sign in</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}code{background:#eee;padding:.1rem .3rem;border-radius:3px;word-break:break-all}</style>
</head><body>
<h1>This dashboard needs its token</h1>
<p>Open the address <code>ralph serve</code> printed when it started: it ends in <code>?token=…</code>, and this browser keeps the token from then on.</p>
<p>On the machine that runs it, <code>ralph status</code> says where it listens, and the token is in the workspace's <code>state/serve-token</code>: open <code>&lt;address&gt;/?token=&lt;that token&gt;</code>.</p>
</body></html>
`;

/** Whether a request is a browser opening a page (not the dashboard's API calls or a script). */
const opensPage = (method: string, accept: string | undefined) =>
  method === 'GET' && accept !== undefined && accept.includes('text/html');

export function guard({ token, hosts, publicOrigins }: GuardOptions): MiddlewareHandler {
  const cookie = cookieName(token);
  return async (c, next) => {
    const host = c.req.header('host');
    if (host === undefined || !hosts.has(hostName(host)))
      return refusal(403, `this server does not answer to the host ${JSON.stringify(host ?? '')}`);
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== `http://${host}` && !publicOrigins.has(origin))
      return refusal(403, `requests from ${JSON.stringify(origin)} are not accepted`);
    const url = new URL(c.req.url);
    const fromUrl = url.searchParams.get('token') ?? undefined;
    if (c.req.method === 'GET' && fromUrl !== undefined && tokenMatches(fromUrl, token)) {
      setCookie(c, cookie, token, { httpOnly: true, sameSite: 'Strict', path: '/' });
      url.searchParams.delete('token');
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    const bearer = /^Bearer (.+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (!tokenMatches(bearer ?? getCookie(c, cookie), token)) {
      if (opensPage(c.req.method, c.req.header('accept')))
        return new Response(SIGN_IN_PAGE, {
          status: 401,
          headers: { 'content-type': 'text/html; charset=utf-8', connection: 'close' },
        });
      return refusal(
        401,
        'a token is needed: open the address "ralph serve" printed, or send "Authorization: Bearer <state/serve-token>"',
      );
    }
    return next();
  };
}
