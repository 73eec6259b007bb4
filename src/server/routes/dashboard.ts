import fsp from 'node:fs/promises';
import path from 'node:path';
import { Hono } from 'hono';
import type { ServerContext } from '../context.js';

/** The dashboard's files, as `npm run build` writes them to `dist/dashboard`. */
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** `/` and `/assets/*`: the dashboard, from the package (no CDN, nothing from the network). */
export function dashboardRoutes(ctx: ServerContext): Hono {
  const app = new Hono();
  const serve = async (name: string) => {
    const type = FILES[name];
    if (type === undefined) return new Response('not found', { status: 404 });
    const bytes = await fsp.readFile(path.join(ctx.assets, name)).catch(() => undefined);
    if (bytes === undefined)
      return new Response(`the dashboard is not built (npm run build): ${name} is missing`, {
        status: 404,
      });
    return new Response(bytes, { headers: { 'content-type': type, 'cache-control': 'no-cache' } });
  };
  app.get('/', () => serve('index.html'));
  app.get('/assets/:name', (c) => serve(c.req.param('name')));
  return app;
}
