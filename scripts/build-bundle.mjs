// Bundles ralph's commands from the compiled modules, each entry on its own so that it loads no
// chunk made to be shared with the other: the quick commands (`status`, `ls`:
// src/cli/quick-commands.ts) into dist/quick, and all the others (src/cli/main.ts) into
// dist/main. Node's start-up costs about a third of a millisecond for each ES module: `status`
// loaded some thirty of ralph's, and `ralph run` some 150 of ralph's and 95 of zod's (its
// sixty locales among them) before its first session. zod is bundled, so that only the parts
// ralph uses are loaded; the other dependencies stay in node_modules, loaded when used. Each
// directory's metafile says which modules its files hold (the start-up test reads them); the
// source maps lead back to src/ through tsc's.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { dependencies } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

for (const [entry, dir] of [
  ['quick-commands', 'quick'],
  ['main', 'main'],
]) {
  const out = path.join(root, 'dist', dir);
  fs.rmSync(out, { recursive: true, force: true });
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: [path.join(root, 'dist', 'cli', `${entry}.js`)],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: Object.keys(dependencies).filter((name) => name !== 'zod'),
    outdir: out,
    metafile: true,
    sourcemap: true,
    logLevel: 'warning',
  });
  fs.writeFileSync(path.join(out, 'meta.json'), `${JSON.stringify(metafile)}\n`);
}
