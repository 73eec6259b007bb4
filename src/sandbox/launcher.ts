/**
 * The first process inside ralph's sandbox (run by node, node's built-ins alone): it gives the
 * sandbox, which has no network of its own, ralph's egress proxy on its loopback, and starts
 * the agent (or gate) as its child.
 *
 *   launcher.js [--socket <proxy socket> --port <proxy port> [--forward <host:port>]...] -- <argv>
 *
 * The proxy listens on a unix socket bound into the sandbox: each connection to
 * `127.0.0.1:<port>` is carried there as it is (an HTTP proxy's client speaks to it); each to a
 * forwarded loopback endpoint (a CLI's API on 127.0.0.1 outside) is carried there as a CONNECT
 * to that endpoint, which the proxy lets through or refuses like any other.
 *
 * ralph starts the sandbox with SIGINT and SIGTERM ignored, so that its stop ladder, sent to the
 * whole process group, reaches the agent without killing bubblewrap (which would take the
 * agent down with it at once); node gives the child the default handling back.
 */
import net from 'node:net';
import os from 'node:os';
import { spawn } from 'node:child_process';

interface Plan {
  socket?: string;
  port?: number;
  forwards: { host: string; port: number }[];
  argv: string[];
}

function parse(args: string[]): Plan {
  const plan: Plan = { forwards: [], argv: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = args[i + 1] ?? '';
    if (arg === '--') {
      plan.argv = args.slice(i + 1);
      break;
    }
    if (arg === '--socket') plan.socket = value;
    else if (arg === '--port') plan.port = Number(value);
    else if (arg === '--forward') {
      const colon = value.lastIndexOf(':');
      plan.forwards.push({ host: value.slice(0, colon), port: Number(value.slice(colon + 1)) });
    } else throw new Error(`unknown argument ${arg}`);
    i++;
  }
  return plan;
}

/** Carries a loopback connection to the proxy as a CONNECT to `target`. */
function forward(client: net.Socket, socketPath: string, target: string): void {
  const upstream = net.connect(socketPath);
  upstream.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end === -1) return;
    upstream.off('data', onData);
    if (!/^HTTP\/1\.[01] 200/.test(head.subarray(0, end).toString('latin1'))) {
      client.destroy();
      upstream.destroy();
      return;
    }
    const rest = head.subarray(end + 4);
    if (rest.length > 0) client.write(rest);
    client.pipe(upstream).pipe(client);
  };
  upstream.on('data', onData);
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
}

function listen(port: number, host: string, onConnection: (s: net.Socket) => void) {
  return new Promise<net.Server>((resolve, reject) => {
    const server = net.createServer(onConnection);
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

async function main(): Promise<void> {
  const plan = parse(process.argv.slice(2));
  const [file, ...args] = plan.argv;
  if (file === undefined) throw new Error('no command after --');
  const servers: net.Server[] = [];
  const { socket } = plan;
  if (socket !== undefined && plan.port !== undefined) {
    servers.push(
      await listen(plan.port, '127.0.0.1', (client) => {
        const upstream = net.connect(socket);
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.pipe(upstream).pipe(client);
      }),
    );
    for (const { host, port } of plan.forwards) {
      const target = `${host}:${port}`;
      servers.push(await listen(port, '127.0.0.1', (client) => forward(client, socket, target)));
    }
  }
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => {});
  const child = spawn(file, args, { stdio: 'inherit', shell: false });
  child.once('error', (error: NodeJS.ErrnoException) => {
    process.stderr.write(`ralph sandbox: cannot start ${file}: ${error.message}\n`);
    process.exit(error.code === 'ENOENT' ? 127 : 126);
  });
  child.once('exit', (code, signal) => {
    for (const server of servers) server.close();
    process.exit(code ?? 128 + (signal === null ? 0 : os.constants.signals[signal]));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `ralph sandbox: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(125);
});
