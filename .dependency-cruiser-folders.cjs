// Cycles between the folders of src/, checked by `npm run lint` apart from the modules'
// (.dependency-cruiser.cjs): a folder that imports a folder importing it back (type imports
// too) makes the two rooms one. Each room's settings schema (its config-schema.ts) is left out,
// and so is src/config/schema.ts that composes them: config/ and the rooms would be a cycle of
// folders by that design alone, and .dependency-cruiser.cjs keeps those schemas leaves.

const ROOM_SETTINGS = '^src/[a-z]+/config-schema[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment: 'a cycle of folders makes its rooms one room: move the shared type down',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    exclude: { path: `${ROOM_SETTINGS}|^src/config/schema[.]ts$` },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
