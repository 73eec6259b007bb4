#!/usr/bin/env node
// Writes the docs' generated parts from the built code (see scripts/docs/pages.mjs).
// Usage: npm run docs   (builds first)
import fs from 'node:fs';
import path from 'node:path';
import { generatedFiles, ROOT } from './docs/pages.mjs';

for (const [file, text] of Object.entries(await generatedFiles())) {
  const at = path.join(ROOT, file);
  fs.mkdirSync(path.dirname(at), { recursive: true });
  const before = fs.existsSync(at) ? fs.readFileSync(at, 'utf8') : undefined;
  if (before === text) continue;
  fs.writeFileSync(at, text);
  console.log(`${file}: written`);
}
