// The generated parts of the docs, rendered from the built code (dist/): the command,
// configuration and HTTP API references, the configuration's JSON Schema, the item's
// lifecycle in docs/concepts.md and the bench tables in docs/performance.md.
// `npm run docs` writes them; test/unit/docs.test.ts fails when one is stale.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import {
  benchTables,
  END,
  headlineTable,
  HEADLINE_END,
  HEADLINE_START,
  START,
  withPart,
} from '../bench/tables.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dist = (module) => import(path.join(ROOT, 'dist', module));

const LIFECYCLE_START = '<!-- lifecycle: written by `npm run docs` from src/queue/lifecycle.ts -->';
const LIFECYCLE_END = '<!-- end of lifecycle -->';

async function formatted(file, text) {
  const options = await prettier.resolveConfig(file);
  return prettier.format(text, { ...options, filepath: file });
}

/** Every generated file (relative to the repository) and what it should hold. */
export async function generatedFiles() {
  const [
    { commandReference },
    { configReference, configJsonSchema },
    { apiReference },
    { lifecycleDiagram },
  ] = await Promise.all([
    dist('docs/command-reference.js'),
    dist('docs/config-reference.js'),
    dist('docs/api-reference.js'),
    dist('docs/lifecycle-diagram.js'),
  ]);
  const { programForDocs } = await dist('docs/program.js');
  const read = (file) => fs.readFileSync(path.join(ROOT, file), 'utf8');
  /** A page whose part between `start` and `end` is generated. */
  const part = (file, start, end, text) => withPart(read(file), file, start, end, text);
  const bench = JSON.parse(read('docs/bench.json'));
  const pages = {
    'docs/reference/commands.md': commandReference(programForDocs()),
    'docs/reference/configuration.md': configReference(),
    'docs/reference/http-api.md': apiReference(),
    'schema/ralph.config.schema.json': JSON.stringify(configJsonSchema()),
    'docs/concepts.md': part(
      'docs/concepts.md',
      LIFECYCLE_START,
      LIFECYCLE_END,
      lifecycleDiagram(),
    ),
    'docs/performance.md': part('docs/performance.md', START, END, benchTables(bench)),
    'README.md': part('README.md', HEADLINE_START, HEADLINE_END, headlineTable(bench)),
  };
  const files = {};
  for (const [file, text] of Object.entries(pages))
    files[file] = await formatted(path.join(ROOT, file), text);
  return files;
}

/** The generated files that differ from what the code makes now. */
export async function staleFiles() {
  const stale = [];
  for (const [file, text] of Object.entries(await generatedFiles())) {
    const at = path.join(ROOT, file);
    if (!fs.existsSync(at) || fs.readFileSync(at, 'utf8') !== text) stale.push(file);
  }
  return stale;
}

export { ROOT };
