// Bundles the quick commands (`status`, `ls`: src/cli/quick-commands.ts) from the compiled
// modules into a few files in dist/quick. Watch loops and shell prompts run these commands
// often, a start-up is most of their cost, and node's start-up costs about a third of a
// millisecond for each ES module: `status` loaded some thirty of ralph's. Dependencies stay in
// node_modules, and the rest of ralph stays as compiled. The metafile says which modules each
// file holds (the start-up test reads it); the source maps lead back to src/ through tsc's.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const out = path.join(root, 'dist', 'quick');
fs.rmSync(out, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: [path.join(root, 'dist', 'cli', 'quick-commands.js')],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  outdir: out,
  metafile: true,
  sourcemap: true,
  logLevel: 'warning',
});
fs.writeFileSync(path.join(out, 'meta.json'), `${JSON.stringify(metafile)}\n`);
