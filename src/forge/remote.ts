/**
 * The `owner/name` of a repository from its remote's URL (https, ssh, or scp-like `git@host:`),
 * or undefined for a remote that names none (a path).
 */
export function repositoryOfRemote(url: string): string | undefined {
  const trimmed = url.trim();
  const scp = /^[\w.-]+@[\w.-]+:(?!\/)(.+)$/.exec(trimmed);
  let pathPart: string;
  if (scp !== null) pathPart = scp[1] ?? '';
  else {
    let parsed: URL;
    try {
      parsed = new URL(trimmed);
    } catch {
      return undefined;
    }
    if (!['https:', 'http:', 'ssh:', 'git:'].includes(parsed.protocol)) return undefined;
    pathPart = parsed.pathname;
  }
  const parts = pathPart
    .replace(/\.git$/, '')
    .replace(/^\/+|\/+$/g, '')
    .split('/');
  if (parts.length < 2) return undefined;
  const [owner, name] = parts.slice(-2);
  return owner !== undefined &&
    name !== undefined &&
    /^[\w.-]+$/.test(owner) &&
    /^[\w.-]+$/.test(name)
    ? `${owner}/${name}`
    : undefined;
}
