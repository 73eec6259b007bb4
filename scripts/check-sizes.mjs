// Sizes `npm run lint` holds src/ to: the runner (claiming, handing items to the session host,
// settling what comes back) at most 2,500 lines, and every class at most 400. Functions are
// held to 120 lines by eslint (max-lines-per-function).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const RUNNER_MAX_LINES = 2_500;
const CLASS_MAX_LINES = 400;

const root = path.resolve(import.meta.dirname, '..');
const sources = fs
  .readdirSync(path.join(root, 'src'), { recursive: true })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => path.join('src', file));

const problems = [];
const lines = (text) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
let runner = 0;
for (const file of sources) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  if (file.startsWith(`src${path.sep}runner${path.sep}`)) runner += lines(text);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const length = end - start + 1;
      const name = node.name?.text ?? '(anonymous)';
      if (length > CLASS_MAX_LINES)
        problems.push(
          `${file}:${start + 1}: class ${name} is ${length} lines (at most ${CLASS_MAX_LINES})`,
        );
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
if (runner > RUNNER_MAX_LINES)
  problems.push(`src/runner/ is ${runner} lines (at most ${RUNNER_MAX_LINES})`);
for (const problem of problems) console.error(problem);
if (problems.length > 0) process.exit(1);
console.log(
  `sizes: src/runner/ ${runner} lines of ${RUNNER_MAX_LINES}; no class over ${CLASS_MAX_LINES} lines`,
);
