// The package: `npm pack` of this clone installs with `npm install -g` on a clean prefix (its
// dependencies from the registry, as a person's install gets them) and works from there,
// outside the clone: `--version`, `ralph demo --no-serve`, `ralph serve` serving the dashboard.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { TEST_RUN_MARKER } from '../support/leak-check.js';
import { readQueue, tempDir } from '../support/workspace.js';

const CLONE = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/**
 * A person's shell: this machine's (its HOME, npm cache and certificates), without the
 * variables `npm test` adds (npm_config_prefix and the like would redirect the install).
 */
const shell = () => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))),
  npm_config_update_notifier: 'false',
  [TEST_RUN_MARKER]: process.env[TEST_RUN_MARKER],
});

describe('the package', () => {
  it('installs from its tarball on a clean prefix and runs: --version, demo, serve', async () => {
    const dir = await tempDir('ralph-package-');
    const env = shell();
    // The build is this clone's (the suite's set-up made it); `npm pack` would build it again.
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: CLONE, env });
    const [tarball] = fs.readdirSync(dir).filter((f) => f.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    const listing = (await run('tar', ['-tzf', path.join(dir, tarball ?? '')])).stdout.split('\n');
    expect(listing).toContain('package/dist/bin.js');
    expect(listing).toContain('package/dist/demo/agent.js');
    expect(listing).toContain('package/dist/dashboard/index.html');
    expect(listing).toContain('package/prompts/bootstrap.md');
    // Only what ralph needs at run time: no sources, tests, maps or tooling.
    expect(listing.filter((f) => /^package\/(src|test|dashboard|scripts)\//.test(f))).toEqual([]);
    expect(listing.filter((f) => f.endsWith('.map'))).toEqual([]);

    const prefix = path.join(dir, 'prefix');
    const install = await run(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--no-audit',
        '--no-fund',
        path.join(dir, tarball ?? ''),
      ],
      { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 },
    );
    // Every dependency runs on the Node.js versions ralph says it runs on (engines: >=20.17).
    expect(install.stderr).not.toContain('EBADENGINE');
    const installed = path.join(prefix, 'lib', 'node_modules', 'ralph');
    // The agent CLIs are never its dependencies (people install the ones they use).
    for (const cli of ['@anthropic-ai', '@openai', '@google', 'opencode-ai', '@mariozechner'])
      expect(fs.existsSync(path.join(installed, 'node_modules', cli)), cli).toBe(false);
    const ralph = path.join(prefix, 'bin', 'ralph');
    const away = path.join(dir, 'elsewhere');
    fs.mkdirSync(away);

    const version = await run(ralph, ['--version'], { cwd: away, env });
    expect(version.stdout.trim()).toBe(
      (JSON.parse(fs.readFileSync(path.join(CLONE, 'package.json'), 'utf8')) as { version: string })
        .version,
    );

    const demo = await run(ralph, ['demo', '--no-serve', '--pace', '0'], { cwd: away, env });
    expect(demo.stdout).toContain('the night is over (ralph run exited 0)');
    const root = path.join(away, 'ralph-demo', 'night');
    const statuses = Object.fromEntries(
      readQueue(root).items.map((i) => [i.id as string, i.status as string]),
    );
    expect(statuses).toEqual({
      'fix-add': 'done',
      subtract: 'done',
      readme: 'done',
      cli: 'done',
      multiply: 'done',
      changelog: 'needs_input',
    });
    // The demo agent ran from the install, not from this clone.
    const [record] = fs
      .readdirSync(path.join(root, 'docs', 'sessions'))
      .filter((f) => /^[0-9a-f-]{36}\.json$/.test(f))
      .map(
        (f) =>
          JSON.parse(fs.readFileSync(path.join(root, 'docs', 'sessions', f), 'utf8')) as {
            command: string[];
          },
      );
    expect(record?.command[1]).toBe(
      fs.realpathSync(path.join(installed, 'dist', 'demo', 'agent.js')),
    );

    const serve = spawn(ralph, ['-C', root, 'serve', '--port', '0'], {
      cwd: away,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    onTestFinished(() => void serve.kill('SIGKILL'));
    let said = '';
    const openUrl = await new Promise<string>((resolve, reject) => {
      serve.stderr.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        const url = /open (http:\/\/\S+)/.exec(said)?.[1];
        if (url !== undefined) resolve(url);
      });
      serve.once('exit', (code) => reject(new Error(`ralph serve exited ${code}: ${said}`)));
    });
    const token = new URL(openUrl).searchParams.get('token') ?? '';
    const authorization = `Bearer ${token}`;
    const page = await fetch(new URL('/', openUrl), { headers: { authorization } });
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /<script[^>]+src="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(script).not.toBe('');
    const asset = await fetch(new URL(script, openUrl), { headers: { authorization } });
    expect(asset.status).toBe(200);
    expect((await asset.text()).length).toBeGreaterThan(10_000);
    const exited = new Promise((resolve) => serve.once('exit', resolve));
    serve.kill('SIGTERM');
    await exited;
  }, 300_000);
});
