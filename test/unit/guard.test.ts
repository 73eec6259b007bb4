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
  it('read back what they wrote, and order by log, offset, then streams', () => {
    const a = { log: 1795437499339, offset: 838, streams: [425] };
    expect(formatCursor(a)).toBe('1795437499339-838-425');
    expect(parseCursor(formatCursor(a))).toEqual(a);
    expect(compareCursors(a, { ...a, streams: [426] })).toBeLessThan(0);
    expect(compareCursors(a, { ...a, offset: 839, streams: [] })).toBeLessThan(0);
    expect(compareCursors(a, { log: a.log + 1, offset: 0, streams: [] })).toBeLessThan(0);
  });

  it('carry one offset per open session: several run at once with --workers', () => {
    const b = { log: 5, offset: 10, streams: [100, 0, 37] };
    expect(formatCursor(b)).toBe('5-10-100.0.37');
    expect(parseCursor('5-10-100.0.37')).toEqual(b);
    expect(compareCursors(b, { ...b, streams: [100, 12, 37] })).toBeLessThan(0);
    expect(formatCursor({ log: 5, offset: 10, streams: [] })).toBe('5-10-0');
  });

  it('refuse anything else', () => {
    for (const id of [
      '',
      '1-2',
      '1-2-3-4',
      'a-b-c',
      '1-2-99999999999999999',
      '1-2-3.',
      '1-2-.3',
      undefined,
    ])
      expect(parseCursor(id), String(id)).toBeUndefined();
  });
});
