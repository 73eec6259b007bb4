// Builds the dashboard into dist/dashboard: one bundled, minified script and its page and
// stylesheet. It ships in the package; nothing is fetched from the network at run time.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const out = path.join(root, 'dist', 'dashboard');
fs.mkdirSync(out, { recursive: true });
await build({
  entryPoints: [path.join(root, 'dashboard', 'src', 'main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outfile: path.join(out, 'app.js'),
  logLevel: 'warning',
});
for (const name of ['index.html', 'app.css'])
  fs.copyFileSync(path.join(root, 'dashboard', name), path.join(out, name));
