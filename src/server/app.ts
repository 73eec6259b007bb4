import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import {
  ContentionError,
  InputError,
  NotFoundError,
  RalphError,
  UnavailableError,
} from '../lib/errors.js';
import type { ServerContext } from './context.js';
import { guard, refusal, type GuardOptions } from './guard.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { reviewRoutes } from './routes/review.js';
import { rulesRoutes } from './routes/rules.js';
import { itemRoutes } from './routes/items.js';
import { nightRoutes } from './routes/night.js';
import { sessionRoutes } from './routes/sessions.js';

/** The largest request body taken: an item's task text is at most 32,000 characters. */
export const MAX_BODY_BYTES = 256 * 1024;

/** What every response carries: nothing loads from elsewhere, no page frames it. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** The HTTP API, the event stream and the dashboard, behind the guard. */
export function createApp(
  ctx: ServerContext,
  access: GuardOptions,
  onError: (e: unknown) => void,
): Hono {
  const app = new Hono();
  app.use(async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
  });
  app.use(guard(access));
  app.use(
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.json({ error: `the request body is over ${MAX_BODY_BYTES} bytes` }, 413),
    }),
  );
  app.use(async (c, next) => {
    if (ctx.readOnly && c.req.method !== 'GET' && c.req.method !== 'HEAD')
      return refusal(403, 'this server is read-only (ralph serve --read-only)');
    return next();
  });
  app.route('/', dashboardRoutes(ctx));
  app.route('/', nightRoutes(ctx));
  app.route('/', reviewRoutes(ctx));
  app.route('/', rulesRoutes(ctx));
  app.route('/', itemRoutes(ctx));
  app.route('/', sessionRoutes(ctx));
  // A path that is there for other methods is a 405 that says which, not a 404.
  const routes = app.routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => ({ method: r.method, path: new RegExp(`^${r.path.replace(/:\w+/g, '[^/]+')}$`) }));
  app.notFound((c) => {
    const { pathname } = new URL(c.req.url);
    const allowed = [...new Set(routes.filter((r) => r.path.test(pathname)).map((r) => r.method))];
    if (allowed.length > 0)
      return c.json(
        { error: `${c.req.method} is not a method of ${pathname}: ${allowed.join(', ')}` },
        405,
        { allow: allowed.join(', ') },
      );
    return c.json({ error: `no route ${c.req.method} ${pathname}` }, 404);
  });
  app.onError((error, c) => {
    const message = ctx.redactor.redact(error.message);
    if (error instanceof NotFoundError) return c.json({ error: message }, 404);
    if (error instanceof InputError) return c.json({ error: message, field: error.field }, 400);
    if (error instanceof ContentionError || error instanceof UnavailableError)
      return c.json({ error: message }, 503);
    if (error instanceof RalphError) return c.json({ error: message }, 409);
    onError(error);
    return c.json({ error: 'internal error (the server has logged it)' }, 500);
  });
  return app;
}
