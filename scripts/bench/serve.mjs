// `ralph serve` rows: event latency from a line archived to the browser, 50 SSE clients,
// GET /sessions over 10,000 sessions, the loop's overhead with a server attached, the bundle.
import { randomUUID } from 'node:crypto';
/* global window, EventSource -- the latency row runs code in the page, through page.evaluate */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import {
  BIN,
  FIXTURES,
  benchEnv,
  elapsed,
  fillQueue,
  run,
  stats,
  statusKb,
  workspace,
} from './lib.mjs';

const DIST = path.dirname(BIN);

/** `ralph serve --port 0` for a workspace: its base address, token and process. */
async function serve(root) {
  const child = spawn(process.execPath, [BIN, '-C', root, 'serve', '--port', '0'], {
    env: benchEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  const openUrl = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const url = /open (http:\/\/\S+)/.exec(text)?.[1];
      if (url) resolve(url);
    });
    child.on('exit', (code) => reject(new Error(`ralph serve exited ${code}: ${text}`)));
  });
  const url = new URL(openUrl);
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return { base: `http://${url.host}`, token: url.searchParams.get('token'), openUrl, child, stop };
}

/** A minimal SSE client counting the `stream` events whose data holds `marker`. */
function sseClient(server, onEvent) {
  const req = http.get(`${server.base}/events`, {
    headers: { authorization: `Bearer ${server.token}` },
  });
  req.on('response', (res) => {
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        onEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    });
  });
  req.on('error', () => undefined);
  return () => req.destroy();
}

/** A workspace in the middle of a session: its log opened it, its archive grows by `append`. */
function midSession() {
  const root = workspace(['true']);
  const session = randomUUID();
  const archive = path.join(root, 'docs', 'sessions', `${session}.ndjson`);
  fs.writeFileSync(archive, '');
  const entry = (event, fields) =>
    JSON.stringify({ time: new Date().toISOString(), level: 'info', event, ...fields });
  fs.writeFileSync(
    path.join(root, 'state', 'iteration.log'),
    `${entry('run_started', { pid: 1 })}\n${entry('session_started', { item: 'bench', session, attempt: 1, command: [] })}\n`,
  );
  const append = (text) =>
    fs.appendFileSync(
      archive,
      `${JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] } })}\n`,
    );
  return { root, append };
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds from a line appended to the archive to its event in a real Chromium page. */
async function latency({ lines }) {
  const { chromium } = await import('playwright-core');
  const { root, append } = midSession();
  const server = await serve(root);
  const executablePath =
    process.env.RALPH_CHROMIUM ?? execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage();
    await page.goto(server.openUrl);
    await page.evaluate(() => {
      window.arrivals = {};
      const source = new EventSource('/events');
      source.addEventListener('stream', (e) => {
        const match = /mark-(\d+)/.exec(e.data);
        if (match) window.arrivals[match[1]] = Date.now();
      });
      return new Promise((resolve) => (source.onopen = resolve));
    });
    const written = [];
    for (let i = 0; i < lines; i++) {
      written.push(Date.now());
      append(`mark-${i}`);
      await pause(20);
    }
    let arrivals = {};
    const deadline = Date.now() + 10_000;
    while (Object.keys(arrivals).length < lines && Date.now() < deadline) {
      arrivals = await page.evaluate(() => window.arrivals);
      await pause(50);
    }
    const delays = written.map((t, i) => (arrivals[i] ?? Infinity) - t);
    const sorted = [...delays].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
    const lost = delays.filter((d) => d === Infinity).length;
    return {
      name: `serve: event latency, archive line to browser (${lines} lines)`,
      value: median,
      unit: 'ms median',
      measure: 'absolute',
      target: '<= 100',
      ok: median <= 100 && lost === 0,
      detail: `p99 ${p99} ms, max ${sorted.at(-1)} ms, ${lost} lost (Chromium EventSource, Date.now on one clock)`,
    };
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** 50 clients on /events while the archive grows: each gets every event; memory above idle. */
async function manyClients({ clients, lines }) {
  const { root, append } = midSession();
  const server = await serve(root);
  try {
    await pause(500);
    const idleKb = statusKb(server.child.pid, 'VmRSS');
    const counts = Array.from({ length: clients }, () => 0);
    const closers = counts.map((_, c) =>
      sseClient(server, (frame) => {
        if (frame.includes('event: stream') && frame.includes('mark-')) counts[c]++;
      }),
    );
    await pause(500);
    let peakKb = statusKb(server.child.pid, 'VmRSS');
    for (let i = 0; i < lines; i++) {
      append(`mark-${i}`);
      if (i % 10 === 0) await pause(5);
      peakKb = Math.max(peakKb, statusKb(server.child.pid, 'VmRSS'));
    }
    const deadline = Date.now() + 20_000;
    while (counts.some((n) => n < lines) && Date.now() < deadline) {
      peakKb = Math.max(peakKb, statusKb(server.child.pid, 'VmRSS'));
      await pause(50);
    }
    for (const close of closers) close();
    const lost = counts.reduce((sum, n) => sum + (lines - n), 0);
    const aboveMb = (peakKb - idleKb) / 1024;
    return {
      name: `serve: ${clients} SSE clients, ${lines} events each`,
      value: aboveMb,
      unit: 'MB above idle',
      measure: 'absolute',
      target: '<= 64, 0 lost',
      ok: aboveMb <= 64 && lost === 0,
      detail: `${lost} events lost; server RSS idle ${(idleKb / 1024).toFixed(0)} MB, peak ${(peakKb / 1024).toFixed(0)} MB (${(peakKb / idleKb).toFixed(2)}x idle)`,
    };
  } finally {
    await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

function get(server, route) {
  return new Promise((resolve, reject) => {
    http
      .get(
        `${server.base}${route}`,
        { headers: { authorization: `Bearer ${server.token}` } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        },
      )
      .on('error', reject);
  });
}

/** GET /sessions (a page of 50, newest first) with 10,000 sessions in the index. */
async function sessionsRoute({ sessions, runs }) {
  const root = workspace(['true']);
  const start = Date.parse('2026-01-01T00:00:00Z');
  const lines = Array.from({ length: sessions }, (_, i) =>
    JSON.stringify({
      sessionId: randomUUID(),
      itemId: `item-${i % 500}`,
      itemTitle: `Item ${i % 500}`,
      status: 'completed',
      outcome: i % 7 === 0 ? 'no_result' : 'success',
      startedAt: new Date(start + i * 60_000).toISOString(),
      durationMs: 45_000,
      turns: 4,
      toolCalls: 7,
      costUsd: 0.0123,
    }),
  );
  fs.writeFileSync(path.join(root, 'docs', 'sessions', 'index.jsonl'), `${lines.join('\n')}\n`);
  const server = await serve(root);
  try {
    const cold = await elapsed(() => get(server, '/sessions'));
    const warm = [];
    const filtered = [];
    const health = [];
    for (let r = 0; r < runs; r++) {
      warm.push(await elapsed(() => get(server, '/sessions?offset=5000')));
      filtered.push(await elapsed(() => get(server, '/sessions?item=item-7&status=success')));
      health.push(await elapsed(() => get(server, '/health')));
    }
    const w = stats(warm);
    const f = stats(filtered);
    const h = stats(health);
    const worst = Math.max(cold, w.median, f.median);
    return {
      name: `serve: GET /sessions, ${sessions} sessions`,
      value: worst,
      unit: 'ms (worst of cold, paged, filtered)',
      measure: 'absolute',
      target: '<= 200',
      ok: worst <= 200,
      detail: `cold ${cold.toFixed(0)} ms, paged ${w.median.toFixed(1)} ms, filtered ${f.median.toFixed(1)} ms (median of ${runs}); GET /health ${h.median.toFixed(1)} ms; paged ${(w.median / h.median).toFixed(2)}x /health`,
    };
  } finally {
    await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** `ralph run --drain` over N items, alone and with a server and a live client attached. */
async function loopWithServer({ items, runs }) {
  const agent = path.join(FIXTURES, 'instant-claude.mjs');
  const alone = [];
  const served = [];
  for (let r = 0; r < runs; r++) {
    for (const attached of [false, true]) {
      const root = workspace([agent]);
      fillQueue(root, items);
      const server = attached ? await serve(root) : undefined;
      let events = 0;
      const close = server ? sseClient(server, () => events++) : () => undefined;
      const ms = await elapsed(() =>
        run(process.execPath, [BIN, '-C', root, 'run', '--drain'], { env: benchEnv() }),
      );
      close();
      await server?.stop();
      (attached ? served : alone).push(ms);
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  const a = stats(alone);
  const s = stats(served);
  const ratio = s.median / a.median;
  return {
    name: `serve: loop overhead with a server attached (${items} items)`,
    value: ratio,
    unit: 'x without',
    measure: 'ratio',
    target: '<= 1.10',
    ok: ratio <= 1.1,
    detail: `with ralph serve and one /events client ${s.median.toFixed(0)} ms (min ${s.min.toFixed(0)}), without ${a.median.toFixed(0)} ms (min ${a.min.toFixed(0)})`,
  };
}

/** The dashboard as shipped: one script, its page and stylesheet. */
function bundleSize() {
  const dir = path.join(DIST, 'dashboard');
  const files = ['app.js', 'app.css', 'index.html'].map((name) =>
    fs.readFileSync(path.join(dir, name)),
  );
  const raw = files.reduce((sum, f) => sum + f.length, 0);
  const gzip = files.reduce((sum, f) => sum + zlib.gzipSync(f).length, 0);
  const preact = fs.readFileSync(
    new URL('../../node_modules/preact/dist/preact.mjs', import.meta.url),
  );
  return {
    name: 'serve: dashboard bundle (js + css + html)',
    value: gzip / 1024,
    unit: 'KB gzipped',
    measure: 'absolute',
    target: '<= 50',
    ok: gzip / 1024 <= 50,
    detail: `${(raw / 1024).toFixed(1)} KB minified; ${(gzip / zlib.gzipSync(preact).length).toFixed(1)}x preact alone gzipped`,
  };
}

export async function serveFigures(size) {
  return [
    await latency(size.latency),
    await manyClients(size.clients),
    await sessionsRoute(size.sessions),
    await loopWithServer(size.loop),
    bundleSize(),
  ];
}
