// Row 2: stream throughput and memory: one session whose agent writes MB of stream-json with
// lines from 1 KB to the largest size; ralph's archive+parse time against `cat` of the same bytes
// to a file, and the runner's peak RSS above its idle RSS.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  BIN,
  FIXTURES,
  benchEnv,
  elapsed,
  run,
  stats,
  statusKb,
  stopRunner,
  until,
  workspace,
} from './lib.mjs';

/** Writes a stream-json file of about `totalMb` with lines from 1 KB up to `maxLineMb`. */
function writeStream(file, totalMb, maxLineMb) {
  const fd = fs.openSync(file, 'w');
  const line = (bytes) =>
    `${JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'x'.repeat(bytes) }] } })}\n`;
  fs.writeSync(fd, '{"type":"system","subtype":"init","session_id":"bench","tools":[]}\n');
  const budget = totalMb * 1024 * 1024;
  const sizes = [
    1024,
    10 * 1024,
    100 * 1024,
    1024 * 1024,
    10 * 1024 * 1024,
    maxLineMb * 1024 * 1024,
  ].filter((s) => s <= maxLineMb * 1024 * 1024);
  // A sixth of the bytes at each size, smallest first.
  for (const size of sizes) {
    const share = budget / sizes.length;
    for (let bytes = 0; bytes < share; bytes += size) {
      fs.writeSync(fd, line(size));
    }
  }
  fs.writeSync(
    fd,
    '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.5,"permission_denials":[]}\n',
  );
  fs.closeSync(fd);
  return fs.statSync(file).size;
}

export async function streamThroughput({ totalMb, maxLineMb, runs }) {
  const root = workspace([path.join(FIXTURES, 'cat-claude.sh')], { run: { pollInterval: 0.2 } });
  // The cat baseline and the agent both write to this workspace's disk.
  const data = path.join(root, 'stream.ndjson');
  const bytes = writeStream(data, totalMb, maxLineMb);
  const cat = [];
  const ralph = [];
  const aboveIdleMb = [];
  for (let r = 0; r < runs; r++) {
    const out = path.join(root, 'cat-copy.ndjson');
    cat.push(await elapsed(() => run('sh', ['-c', 'cat "$0" > "$1"', data, out])));
    fs.rmSync(out);

    const id = `stream-${r}`;
    execAdd(root, id);
    fs.writeFileSync(path.join(root, 'state', 'interrupt-request.txt'), 'hold\n');
    const log = path.join(root, 'state', 'iteration.log');
    fs.rmSync(log, { force: true });
    // Without --drain: a drained run ends at once while paused, and the pause is the idle baseline.
    const runner = spawn(process.execPath, [BIN, '-C', root, 'run'], {
      env: benchEnv({ BENCH_STREAM_FILE: data }),
      stdio: 'ignore',
    });
    await until(() => fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('"paused"'));
    const idleKb = statusKb(runner.pid, 'VmRSS');
    let peakKb = idleKb;
    const sampler = setInterval(() => {
      try {
        peakKb = Math.max(peakKb, statusKb(runner.pid, 'VmRSS'));
      } catch {
        // Exited.
      }
    }, 10);
    fs.rmSync(path.join(root, 'state', 'interrupt-request.txt'));
    await until(() => fs.readFileSync(log, 'utf8').includes('"session_ended"'), 5, 300_000);
    clearInterval(sampler);
    await stopRunner(runner);
    const events = fs
      .readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const ended = events.find((e) => e.event === 'session_ended');
    if (ended.outcome !== 'success') throw new Error(`stream benchmark: outcome ${ended.outcome}`);
    // Archive and parse: the agent writes the file, ralph follows and parses it to the last byte.
    ralph.push(ended.streamMs);
    aboveIdleMb.push((peakKb - idleKb) / 1024);
    const archive = path.join(root, 'docs', 'sessions', `${ended.session}.ndjson`);
    if (fs.statSync(archive).size !== bytes)
      throw new Error('stream benchmark: the archive is not byte-complete');
    fs.rmSync(archive);
  }
  fs.rmSync(root, { recursive: true, force: true });
  const c = stats(cat);
  const r = stats(ralph);
  const m = stats(aboveIdleMb);
  const mb = bytes / 1024 / 1024;
  return [
    {
      name: `stream throughput (${mb.toFixed(0)} MB, lines to ${maxLineMb} MB)`,
      value: c.median / r.median,
      unit: "x cat's throughput",
      measure: 'ratio',
      target: '>= 0.5',
      ok: c.median / r.median >= 0.5,
      detail: `ralph ${(mb / (r.median / 1000)).toFixed(0)} MB/s (${r.median.toFixed(0)} ms, min ${r.min.toFixed(0)}, max ${r.max.toFixed(0)}), cat ${(mb / (c.median / 1000)).toFixed(0)} MB/s (${c.median.toFixed(0)} ms)`,
    },
    {
      name: 'stream peak memory above idle',
      value: m.median,
      unit: 'MB',
      measure: 'absolute',
      target: '<= 100',
      ok: m.max <= 100,
      detail: `median ${m.median.toFixed(1)} MB, max ${m.max.toFixed(1)} MB over ${m.n} runs`,
    },
  ];
}

function execAdd(root, id) {
  const file = path.join(root, 'state', 'queue.json');
  const queue = JSON.parse(fs.readFileSync(file, 'utf8'));
  queue.items.push({ id, title: id, createdAt: new Date().toISOString() });
  fs.writeFileSync(file, JSON.stringify(queue));
}
