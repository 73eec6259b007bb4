// Status questions go through the lifecycle (its traits: `statusIs`, `holderOf`, `freshInLine`;
// its rules: `appliesTo`, `leadsTo`): a literal comparison of an item's status outside the
// table's own files asks what the table should answer, and goes wrong when the table changes.
// `npm run lint` fails on any, in src/ and in the dashboard (`--list` lists them).
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
/** Where the lifecycle itself lives: literals are its vocabulary. */
const TABLE = new Set([
  'src/queue/lifecycle.ts',
  'src/queue/transitions.ts',
  'src/queue/item-status.ts',
]);

/** The programs checked: src/ and the dashboard's own. */
const PROGRAMS = [
  { tsconfig: 'tsconfig.json', under: 'src/' },
  { tsconfig: 'dashboard/tsconfig.json', under: 'dashboard/src/' },
];
const STATUSES = new Set();
const found = new Map();
for (const { tsconfig, under } of PROGRAMS) {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, tsconfig),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => console.error(d.messageText),
    },
  );
  const program = ts.createProgram(config.fileNames, config.options);
  const checker = program.getTypeChecker();
  if (STATUSES.size === 0) {
    const statusSource = program.getSourceFile(path.join(root, 'src/queue/item-status.ts'));
    ts.forEachChild(statusSource, function visit(node) {
      if (ts.isVariableDeclaration(node) && node.name.getText() === 'ITEM_STATUSES')
        for (const e of node.initializer.expression.elements) STATUSES.add(e.text);
      ts.forEachChild(node, visit);
    });
  }
  /** Whether `node` is an item's status: typed `ItemStatus`, or a part of it after narrowing. */
  const itemStatus = (node) => statusType(checker.getTypeAtLocation(node));
  const statusType = (type) => {
    if (type.aliasSymbol?.getName() === 'ItemStatus') return true;
    const parts = (type.isUnion() ? type.types : [type]).filter(
      (t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)),
    );
    return parts.length > 0 && parts.every((t) => t.isStringLiteral() && STATUSES.has(t.value));
  };
  /** Whether `node` is a list of statuses. */
  const statusList = (node) => {
    const type = checker.getTypeAtLocation(node);
    const element = checker.isArrayType(type) ? checker.getTypeArguments(type)[0] : undefined;
    return element !== undefined && statusType(element);
  };
  const isStatusLiteral = (node) => ts.isStringLiteral(node) && STATUSES.has(node.text);
  for (const source of program.getSourceFiles()) {
    const file = path.relative(root, source.fileName);
    if (!file.startsWith(under) || TABLE.has(file)) continue;
    const note = (node) => {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const text = node.getText(source).replace(/\s+/g, ' ').slice(0, 90);
      found.set(file, [...(found.get(file) ?? []), `${file}:${line}: ${text}`]);
    };
    const visit = (node) => {
      if (
        ts.isBinaryExpression(node) &&
        [
          ts.SyntaxKind.EqualsEqualsEqualsToken,
          ts.SyntaxKind.ExclamationEqualsEqualsToken,
        ].includes(node.operatorToken.kind)
      ) {
        const [literal, other] = ts.isStringLiteral(node.right)
          ? [node.right, node.left]
          : [node.left, node.right];
        if (isStatusLiteral(literal) && itemStatus(other)) note(node);
      }
      if (ts.isSwitchStatement(node) && itemStatus(node.expression))
        for (const clause of node.caseBlock.clauses)
          if (ts.isCaseClause(clause) && isStatusLiteral(clause.expression))
            note(clause.expression);
      // `statuses.includes('landing')`, `['done', 'failed'].includes(status)`
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        ['includes', 'has'].includes(node.expression.name.text) &&
        node.arguments.length === 1
      ) {
        const [argument] = node.arguments;
        const receiver = node.expression.expression;
        if (
          (isStatusLiteral(argument) && statusList(receiver)) ||
          (itemStatus(argument) &&
            ts.isArrayLiteralExpression(receiver) &&
            receiver.elements.some(isStatusLiteral))
        )
          note(node);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
}

const hits = [...found.values()].flat();
if (process.argv.includes('--list')) for (const hit of hits) console.log(hit);
console.log(`status literals outside the table: ${hits.length}`);
if (hits.length > 0) {
  console.error(hits.join('\n'));
  console.error('ask the lifecycle instead (src/queue/item-status.ts, src/queue/lifecycle.ts)');
  process.exit(1);
}
