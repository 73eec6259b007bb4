#!/usr/bin/env node
// Keeps the figures of one full bench run as docs/bench.json, the record the tables of
// docs/performance.md and the README are written from (`npm run docs` writes them).
// Usage: node scripts/bench-record.mjs [bench.json]   (default: bench-results/bench.json)
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (file) => fileURLToPath(new URL(`../${file}`, import.meta.url));
const from = process.argv[2] ?? here('bench-results/bench.json');
const results = JSON.parse(fs.readFileSync(from, 'utf8'));
if (!Array.isArray(results.rows) || results.rows.some((r) => typeof r.bench !== 'string'))
  throw new Error(`${from}: not the bench.json of a run of this version (rows without "bench")`);
if (results.quick || results.only !== undefined)
  throw new Error(
    `${from}: the docs' figures are of one full run of every bench, not --quick or --only`,
  );
fs.writeFileSync(here('docs/bench.json'), `${JSON.stringify(results, null, 2)}\n`);
console.log(`docs/bench.json: ${results.rows.length} rows from ${from}; now npm run docs`);
