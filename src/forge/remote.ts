import type { ForgeKind } from './config-schema.js';

/** The path of a remote's URL (https, ssh, or scp-like `git@host:`), split; undefined for a path. */
function pathOf(url: string): { host: string; parts: string[] } | undefined {
  const trimmed = url.trim();
  const scp = /^[\w.-]+@([\w.-]+):(?!\/)(.+)$/.exec(trimmed);
  let host: string;
  let pathPart: string;
  if (scp !== null) {
    host = scp[1] ?? '';
    pathPart = scp[2] ?? '';
  } else {
    let parsed: URL;
    try {
      parsed = new URL(trimmed);
    } catch {
      return undefined;
    }
    if (!['https:', 'http:', 'ssh:', 'git:'].includes(parsed.protocol)) return undefined;
    host = parsed.hostname;
    pathPart = parsed.pathname;
  }
  const parts = pathPart
    .replace(/\.git$/, '')
    .replace(/^\/+|\/+$/g, '')
    .split('/');
  return parts.every((part) => /^[\w.-]+$/.test(part)) ? { host, parts } : undefined;
}

/**
 * The `owner/name` of a repository from its remote's URL (https, ssh, or scp-like `git@host:`),
 * or undefined for a remote that names none (a path).
 */
export function repositoryOfRemote(url: string): string | undefined {
  const parts = pathOf(url)?.parts ?? [];
  return parts.length < 2 ? undefined : parts.slice(-2).join('/');
}

/**
 * A GitLab project's path (`group/subgroup/name`) from its remote's URL: the whole path after the
 * host, less the instance's own path (`apiUrl`'s, for one served under a prefix).
 */
export function projectOfRemote(url: string, apiUrl: string): string | undefined {
  const found = pathOf(url);
  if (found === undefined) return undefined;
  const prefix = new URL(apiUrl).pathname.split('/').filter((part) => part !== '');
  const { parts } = found;
  const rest = prefix.every((part, i) => parts[i] === part) ? parts.slice(prefix.length) : parts;
  return rest.length < 2 ? undefined : rest.join('/');
}

/** The forge a remote's URL is on, when its host says so (github.com, gitlab.com, gitlab.*). */
export function forgeOfRemote(
  url: string,
): { kind: ForgeKind; apiUrl?: string; repo: string } | undefined {
  const found = pathOf(url);
  if (found === undefined || found.parts.length < 2) return undefined;
  const host = found.host.toLowerCase();
  if (host === 'github.com') return { kind: 'github', repo: found.parts.slice(-2).join('/') };
  if (host === 'gitlab.com') return { kind: 'gitlab', repo: found.parts.join('/') };
  if (/^gitlab\./.test(host) || host.includes('.gitlab.'))
    return { kind: 'gitlab', apiUrl: `https://${host}`, repo: found.parts.join('/') };
  return undefined;
}
