// Row 4: idle cost: the runner's CPU time while its agent is silent, and while it is paused.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, FIXTURES, benchEnv, cpuMs, stopRunner, until, workspace } from './lib.mjs';

async function measure(root, seconds, env, ready) {
  const runner = spawn(process.execPath, [BIN, '-C', root, 'run'], { env, stdio: 'ignore' });
  try {
    await until(ready, 20);
    // Steady state: about 8 s after start V8's memory reducer runs a one-off compacting GC in
    // any node process (node --trace-gc shows it); that is start-up, not the runner's idle cost.
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    const cpu0 = cpuMs(runner.pid);
    const t0 = Date.now();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    return (cpuMs(runner.pid) - cpu0) / (Date.now() - t0);
  } finally {
    await stopRunner(runner);
  }
}

export async function idleCost({ seconds }) {
  const silentRoot = workspace([path.join(FIXTURES, 'silent-claude.mjs')], {
    defaults: { idleTimeout: 3600 },
  });
  const ready = path.join(silentRoot, 'ready');
  fs.writeFileSync(
    path.join(silentRoot, 'state', 'queue.json'),
    JSON.stringify({ version: 1, items: [{ id: 'quiet', title: 'quiet' }] }),
  );
  const silent = await measure(silentRoot, seconds, benchEnv({ BENCH_READY: ready }), () =>
    fs.existsSync(ready),
  );

  const pausedRoot = workspace([path.join(FIXTURES, 'silent-claude.mjs')]);
  fs.writeFileSync(path.join(pausedRoot, 'state', 'interrupt-request.txt'), 'benchmark\n');
  const log = path.join(pausedRoot, 'state', 'iteration.log');
  const paused = await measure(
    pausedRoot,
    seconds,
    benchEnv(),
    () => fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('"paused"'),
  );
  for (const root of [silentRoot, pausedRoot]) fs.rmSync(root, { recursive: true, force: true });
  return [
    {
      name: `idle CPU, agent silent ${seconds} s`,
      value: silent * 100,
      unit: '% of a core',
      measure: 'absolute',
      target: '<= 0.5',
      ok: silent * 100 <= 0.5,
      detail: `${(silent * seconds * 1000).toFixed(0)} ms of CPU in ${seconds} s`,
    },
    {
      name: `idle CPU, paused ${seconds} s`,
      value: paused * 100,
      unit: '% of a core',
      measure: 'absolute',
      target: '<= 0.5',
      ok: paused * 100 <= 0.5,
      detail: `${(paused * seconds * 1000).toFixed(0)} ms of CPU in ${seconds} s`,
    },
  ];
}
