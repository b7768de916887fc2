// Layering rules for src/ and tools/, checked in `npm test` (test/structure/layers.test.ts) and by
// `npx depcruise src tools`. Lower layers (catalogue, upstream, builders, diff) must not reach up into
// the gateway or the CLI that compose them; no module or folder may depend on itself in a loop,
// because a cycle is where layers stop pointing one way (docs/architecture.md, "Layers").
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'lower-layer-imports-upper',
      comment: 'catalogue/, upstream/, builders/, diff/ and docs/ are used by the gateway and the CLI, never the reverse',
      severity: 'error',
      from: { path: '^src/(catalogue|upstream|builders|diff|docs)/' },
      to: { path: ['^src/(gateway|cli)/', '^src/(cli|server|config|cluster)\\.ts$'] },
    },
    {
      name: 'no-circular',
      comment: 'a file that (through others) imports itself',
      severity: 'error',
      from: { path: '^(src|tools)/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      comment: 'a folder that (through other folders) depends on itself, e.g. upstream/ → gateway/ → upstream/, or gateway/stages/ → gateway/routes/ → gateway/stages/',
      severity: 'error',
      scope: 'folder',
      from: { path: '^(src|tools)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
