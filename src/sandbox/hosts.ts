/** A host the sandbox's proxy lets through: a name (or `*.` and a domain) and maybe one port. */
export interface AllowedHost {
  host: string;
  /** Any subdomain of `host` (written `*.host`), not `host` itself. */
  subdomains: boolean;
  port?: number;
}

/** Reads `*.github.com`, `registry.npmjs.org`, `127.0.0.1:8080` (checked by the settings' schema). */
export function parseAllowedHost(text: string): AllowedHost {
  const subdomains = text.startsWith('*.');
  const rest = subdomains ? text.slice(2) : text;
  const colon = rest.lastIndexOf(':');
  const port = colon === -1 ? undefined : Number(rest.slice(colon + 1));
  return { host: (colon === -1 ? rest : rest.slice(0, colon)).toLowerCase(), subdomains, port };
}

/** Whether a connection to `host:port` is let through by `allowed`. */
export function isAllowed(allowed: readonly AllowedHost[], host: string, port: number): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return allowed.some(
    (entry) =>
      (entry.port === undefined || entry.port === port) &&
      (entry.subdomains ? name.endsWith(`.${entry.host}`) : name === entry.host),
  );
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost']);

/** The first port a process without privileges may listen on. */
const FIRST_UNPRIVILEGED_PORT = 1024;

/**
 * The allowed loopback endpoints (`127.0.0.1:8080`): inside the sandbox, loopback is the
 * sandbox's own, so ralph's launcher listens there and carries each connection to the proxy
 * (a privileged port is reached through the proxy's variables alone).
 */
export function loopbackForwards(
  allowed: readonly AllowedHost[],
): { host: string; port: number }[] {
  const forwards: { host: string; port: number }[] = [];
  for (const { host, port, subdomains } of allowed)
    if (
      !subdomains &&
      LOOPBACK.has(host) &&
      port !== undefined &&
      port >= FIRST_UNPRIVILEGED_PORT &&
      // One listener a port inside: a host both the CLI's API and allowed is forwarded once.
      !forwards.some((f) => f.host === host && f.port === port)
    )
      forwards.push({ host, port });
  return forwards;
}
