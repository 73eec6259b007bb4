import { describe, expect, it } from 'vitest';
import { allowedHosts } from '../../src/server/guard.js';
import { compareCursors, formatCursor, parseCursor } from '../../src/server/cursor.js';

const machine = { name: 'Night-Box', addresses: ['127.0.0.1', '10.0.0.7', '::1', 'fe80::1'] };

describe('the Host names a server answers to', () => {
  it('are the loopback names when bound to loopback, whatever the port', () => {
    expect([...allowedHosts('127.0.0.1', [], machine)].sort()).toEqual(
      ['127.0.0.1', '[::1]', 'localhost'].sort(),
    );
  });

  it('are every address and the name of the machine when bound to all of them', () => {
    const hosts = allowedHosts('0.0.0.0', ['ralph.example'], machine);
    for (const name of [
      'localhost',
      '127.0.0.1',
      '10.0.0.7',
      '[fe80::1]',
      'night-box',
      'ralph.example',
    ])
      expect(hosts.has(name), name).toBe(true);
    expect(hosts.has('evil.example')).toBe(false);
  });

  it('is the bound address alone otherwise', () => {
    expect([...allowedHosts('10.0.0.7', [], machine)]).toEqual(['10.0.0.7']);
  });
});

describe('event ids', () => {
  it('read back what they wrote, and order by log, offset, then stream', () => {
    const a = { log: 1795437499339, offset: 838, stream: 425 };
    expect(parseCursor(formatCursor(a))).toEqual(a);
    expect(compareCursors(a, { ...a, stream: 426 })).toBeLessThan(0);
    expect(compareCursors(a, { ...a, offset: 839, stream: 0 })).toBeLessThan(0);
    expect(compareCursors(a, { log: a.log + 1, offset: 0, stream: 0 })).toBeLessThan(0);
  });

  it('refuse anything else', () => {
    for (const id of ['', '1-2', '1-2-3-4', 'a-b-c', '1-2-99999999999999999', undefined])
      expect(parseCursor(id), String(id)).toBeUndefined();
  });
});
