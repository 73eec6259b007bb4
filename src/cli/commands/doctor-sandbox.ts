import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cliNamed, commandOf } from '../../agent/clis/index.js';
import { buildAgentEnv } from '../../agent/env.js';
import { runToEnd } from '../../agent/process.js';
import { resolveSandbox } from '../../agent/settings.js';
import type { CliName } from '../../config/cli-names.js';
import type { Workspace } from '../../config/workspace.js';
import { enterSandbox, interruptStandIn } from '../../runner/index.js';
import { bubblewrapOf, probeSandbox } from '../../sandbox/probe.js';
import { EgressProxy } from '../../sandbox/proxy.js';
import type { Check } from './doctor-check.js';

/**
 * Starts the CLI's command (`--version`) once inside ralph's sandbox as a night will (its work
 * dir, its state, the interrupt file's stand-in): a layout that breaks every session is found
 * in the evening, not after a night of attempts.
 */
export async function checkCliInSandbox(
  workspace: Workspace,
  name: CliName,
  parentEnv: Readonly<Record<string, string | undefined>>,
): Promise<Check> {
  const { config, paths } = workspace;
  const probe = await probeSandbox(bubblewrapOf(parentEnv));
  if (!probe.ok)
    return { verdict: 'FAIL', name: 'in-sandbox', detail: `${name}: ${probe.problem}` };
  const cli = cliNamed(name);
  const sessionId = `doctor-${process.pid}`;
  const configured = path.resolve(workspace.root, config.defaults.workDir ?? '.');
  const exists = await fsp.stat(configured).then(
    (s) => s.isDirectory(),
    () => false,
  );
  const workDir = exists ? configured : await fsp.mkdtemp(path.join(os.tmpdir(), 'ralph-doctor-'));
  const { env } = buildAgentEnv(parentEnv, {
    deny: config.env.deny,
    allow: config.env.allow,
    credentials: cli.credentials,
    session: { sessionId, itemId: 'doctor', iteration: 0, interruptFile: paths.interruptFile },
  });
  const [file = '', ...leading] = commandOf(config, name);
  const egress = new EgressProxy();
  try {
    const entered = await enterSandbox(
      { egress, parentEnv, workspace },
      {
        sandbox: resolveSandbox(config, []),
        cli,
        argv: { file, args: [...leading, '--version'] },
        env,
        workDir,
        interrupt: await interruptStandIn(paths, workDir, sessionId),
        onRefused: () => undefined,
      },
    );
    if ('problem' in entered)
      return { verdict: 'FAIL', name: 'in-sandbox', detail: `${name}: ${entered.problem}` };
    try {
      await runToEnd(entered.argv.file, entered.argv.args, { env: entered.env, timeoutMs: 30_000 });
    } finally {
      await entered.close();
    }
    return {
      verdict: 'ok',
      name: 'in-sandbox',
      detail: `${name} starts in ralph's sandbox as a session will (work dir ${workDir})`,
    };
  } catch (error) {
    return {
      verdict: 'FAIL',
      name: 'in-sandbox',
      detail: `${name} cannot start in ralph's sandbox (${error instanceof Error ? error.message : String(error)}): every session of it would fail; fix "sandbox" or "clis.${name}.command" in ralph.config.json`,
    };
  } finally {
    await egress.close();
    if (!exists) await fsp.rm(workDir, { recursive: true, force: true });
  }
}
