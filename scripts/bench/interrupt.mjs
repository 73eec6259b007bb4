// Row 3: interrupt latency: from the interrupt file's creation to the agent receiving SIGINT.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { BIN, FIXTURES, benchEnv, stats, stopRunner, until, workspace } from './lib.mjs';

export async function interruptLatency({ trials }) {
  const root = workspace([path.join(FIXTURES, 'signal-claude.mjs')], {
    run: { killGrace: 2, pollInterval: 5 },
  });
  const ready = path.join(root, 'ready');
  const stamp = path.join(root, 'stamp');
  const interrupt = path.join(root, 'state', 'interrupt-request.txt');
  const queue = path.join(root, 'state', 'queue.json');
  fs.writeFileSync(queue, JSON.stringify({ version: 1, items: [{ id: 'held', title: 'held' }] }));
  const runner = spawn(process.execPath, [BIN, '-C', root, 'run'], {
    env: benchEnv({ BENCH_READY: ready, BENCH_STAMP: stamp }),
    stdio: 'ignore',
  });
  const latencies = [];
  try {
    for (let t = 0; t < trials; t++) {
      await until(() => fs.existsSync(ready));
      const created = performance.timeOrigin + performance.now();
      fs.writeFileSync(interrupt, `trial ${t}\n`);
      // Read once the agent has written it whole (an empty read would count as time 0).
      const stamped = () => Number(fs.existsSync(stamp) ? fs.readFileSync(stamp, 'utf8') : '');
      await until(() => stamped() > 0, 1);
      latencies.push(stamped() - created);
      fs.rmSync(stamp);
      fs.rmSync(ready);
      // The interrupted item is resumed once the file goes: the next trial's agent.
      await until(
        () => JSON.parse(fs.readFileSync(queue, 'utf8')).items[0]?.status === 'interrupted',
      );
      fs.rmSync(interrupt);
    }
  } finally {
    await stopRunner(runner);
    fs.rmSync(root, { recursive: true, force: true });
  }
  const s = stats(latencies);
  return {
    name: `interrupt latency (${trials} trials)`,
    value: s.median / 1000,
    unit: 's (median)',
    measure: 'absolute',
    target: '<= 0.2',
    ok: s.median / 1000 <= 0.2,
    detail: `median ${s.median.toFixed(1)} ms, min ${s.min.toFixed(1)}, max ${s.max.toFixed(1)} ms`,
  };
}
