#!/usr/bin/env node
// Writes the figures of one bench run into the README: copies its bench.json to docs/bench.json
// (the record the README's tables come from) and renders the tables from it.
// Usage: node scripts/bench-readme.mjs [bench.json]   (default: bench-results/bench.json)
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withTables } from './bench/tables.mjs';

const here = (file) => fileURLToPath(new URL(`../${file}`, import.meta.url));
const from = process.argv[2] ?? here('bench-results/bench.json');
const results = JSON.parse(fs.readFileSync(from, 'utf8'));
if (!Array.isArray(results.rows) || results.rows.some((r) => typeof r.bench !== 'string'))
  throw new Error(`${from}: not the bench.json of a run of this version (rows without "bench")`);
if (results.quick || results.only !== undefined)
  throw new Error(
    `${from}: the README's figures are of one full run of every bench, not --quick or --only`,
  );
fs.writeFileSync(here('docs/bench.json'), `${JSON.stringify(results, null, 2)}\n`);
const readme = here('README.md');
fs.writeFileSync(readme, await withTables(fs.readFileSync(readme, 'utf8'), results, readme));
console.log(`README.md: ${results.rows.length} rows from ${from}`);
