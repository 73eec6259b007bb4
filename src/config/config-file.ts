/** Name of the workspace configuration file (a module of its own: the CLI finds it at start). */
export const CONFIG_FILE = 'ralph.config.json';
