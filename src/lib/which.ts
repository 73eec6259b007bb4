import fs from 'node:fs';
import path from 'node:path';

/** Where a command name resolves on PATH, like the shell would (without running a shell). */
export function which(command: string, envPath: string | undefined): string | undefined {
  const isExecutable = (file: string) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (command.includes('/')) return isExecutable(command) ? path.resolve(command) : undefined;
  for (const dir of (envPath ?? '').split(':')) {
    if (dir !== '' && isExecutable(path.join(dir, command))) return path.join(dir, command);
  }
  return undefined;
}
