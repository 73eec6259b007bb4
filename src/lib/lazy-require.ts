/**
 * node's `module` builtin, reached through `process.getBuiltinModule` (Node 20.16+) and typed
 * here: the dashboard's type check reaches the cron module through the item schema, without
 * node's types.
 */
interface NodeModuleBuiltin {
  createRequire(url: string): (id: string) => unknown;
}
const nodeModule = () =>
  (
    globalThis as unknown as {
      process: { getBuiltinModule(id: 'node:module'): NodeModuleBuiltin };
    }
  ).process.getBuiltinModule('node:module');

/**
 * A CommonJS package required at its first use, not at start: a package most runs never need
 * (a cron parser, a YAML parser) would otherwise cost every start-up its loading.
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= nodeModule().createRequire(import.meta.url)(id) as T);
}
