import { describe, expect, it } from 'vitest';
import { isAllowed, loopbackForwards, parseAllowedHost } from '../../src/sandbox/hosts.js';

const allowed = [
  'registry.npmjs.org',
  '*.github.com',
  'api.example.com:443',
  '127.0.0.1:8080',
  'localhost:80',
].map(parseAllowedHost);

describe('the hosts a sandbox lets through', () => {
  it('matches a name, its subdomains when asked, and a port when one is named', () => {
    expect(isAllowed(allowed, 'registry.npmjs.org', 443)).toBe(true);
    expect(isAllowed(allowed, 'REGISTRY.npmjs.org', 80)).toBe(true);
    expect(isAllowed(allowed, 'evil-registry.npmjs.org', 443)).toBe(false);
    expect(isAllowed(allowed, 'api.github.com', 443)).toBe(true);
    expect(isAllowed(allowed, 'github.com', 443)).toBe(false);
    expect(isAllowed(allowed, 'github.com.evil.example', 443)).toBe(false);
    expect(isAllowed(allowed, 'api.example.com', 443)).toBe(true);
    expect(isAllowed(allowed, 'api.example.com', 80)).toBe(false);
    expect(isAllowed(allowed, '127.0.0.1', 8081)).toBe(false);
  });

  it('forwards the allowed loopback endpoints a process without privileges may listen on', () => {
    expect(loopbackForwards(allowed)).toEqual([{ host: '127.0.0.1', port: 8080 }]);
  });
});
