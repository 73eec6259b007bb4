import net from 'node:net';

/** A running item's own block of ports and its name among the items running beside it. */
export interface Slot {
  /** Its number: the block's, from 0. */
  index: number;
  /** Its ports, the first one `RALPH_PORT`. */
  ports: readonly number[];
}

/** The variables that give a session (its agent, its gates) its slot. */
export function slotVariables(slot: Slot | undefined): Record<string, string> {
  if (slot === undefined) return {};
  return {
    RALPH_SLOT: String(slot.index),
    RALPH_PORT: String(slot.ports[0]),
    RALPH_PORTS: `${slot.ports[0]}-${slot.ports.at(-1)}`,
  };
}

/** Whether nothing listens on `port` of 127.0.0.1 now (it can be bound). */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () =>
      server.close(() => resolve(true)),
    );
  });
}

/**
 * The blocks of ports the items a runner runs at once are given (`environment.ports`): each
 * item the first block no item of this runner holds and no other process listens on, so two
 * workers' test servers never share a port.
 */
export class Slots {
  private readonly held = new Set<number>();

  constructor(
    private readonly base: number,
    private readonly size: number,
  ) {}

  /** A free block, held until `release`; undefined when none is left below 65536. */
  async take(): Promise<Slot | undefined> {
    for (let index = 0; this.base + (index + 1) * this.size <= 65_536; index++) {
      if (this.held.has(index)) continue;
      const ports = Array.from({ length: this.size }, (_, i) => this.base + index * this.size + i);
      this.held.add(index);
      if ((await Promise.all(ports.map(isFree))).every(Boolean)) return { index, ports };
      this.held.delete(index);
    }
    return undefined;
  }

  release(slot: Slot | undefined): void {
    if (slot !== undefined) this.held.delete(slot.index);
  }
}
