import { fileURLToPath } from 'node:url';

/**
 * A file of ralph's own package, found from this module. It sits one directory below the root
 * of the sources (src/lib), of the compiled modules (dist/lib) and of the bundles (dist/main
 * and dist/quick hold it too), so one relative path holds in all.
 */
const packageFile = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

/** The command itself, for what runs ralph again in a child. */
export const RALPH_BIN = packageFile('../bin.js');
/** The scripted agent of `ralph demo`. */
export const DEMO_AGENT = packageFile('../demo/agent.js');
/** The bootstrap prompt `ralph init` writes into a new workspace. */
export const BOOTSTRAP_PROMPT = packageFile('../../prompts/bootstrap.md');
export const INSTRUCTIONS_PROMPT = packageFile('../../prompts/instructions.md');
/** The dashboard's built files, which `ralph serve` serves. */
export const DASHBOARD_ASSETS = packageFile('../dashboard/');
/** The sandbox's launcher, a plain file the build copies beside the compiled sandbox modules. */
export const SANDBOX_LAUNCHER = packageFile('../sandbox/launcher.pl');
/** The JSON Schema of ralph.config.json that `ralph init` names for editors. */
export const CONFIG_JSON_SCHEMA = packageFile('../../schema/ralph.config.schema.json');
