import { createSocket, type Socket } from 'node:dgram';

/**
 * A DNS server on 127.0.0.1 (UDP) that answers A queries for the names it is given, NODATA
 * for their other types, NXDOMAIN for any other name, and nothing at all for `silent` names.
 */
export class DnsStub {
  private socket?: Socket;
  readonly queries: string[] = [];

  constructor(
    private readonly a: Record<string, string>,
    private readonly silent: readonly string[] = [],
  ) {}

  async start(): Promise<string> {
    const s = createSocket('udp4');
    this.socket = s;
    s.on('message', (msg, from) => {
      const q = parseQuestion(msg);
      if (!q) return;
      this.queries.push(`${q.name} ${q.type}`);
      if (this.silent.includes(q.name)) return;
      const ip = this.a[q.name];
      const answer = ip !== undefined && q.type === 1 ? aRecord(ip) : undefined;
      const rcode = ip === undefined ? 3 : 0;
      const header = Buffer.alloc(12);
      msg.copy(header, 0, 0, 2); // id
      header.writeUInt16BE(0x8180 | rcode, 2); // response, recursion desired and available
      header.writeUInt16BE(1, 4);
      header.writeUInt16BE(answer ? 1 : 0, 6);
      s.send(
        Buffer.concat([header, msg.subarray(12, q.end), ...(answer ? [answer] : [])]),
        from.port,
        from.address,
      );
    });
    await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve));
    return `127.0.0.1:${s.address().port}`;
  }

  async stop(): Promise<void> {
    const s = this.socket;
    this.socket = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}

function parseQuestion(msg: Buffer): { name: string; type: number; end: number } | undefined {
  const labels: string[] = [];
  let i = 12;
  while (i < msg.length && msg[i]! > 0) {
    const n = msg[i]!;
    labels.push(msg.subarray(i + 1, i + 1 + n).toString('ascii'));
    i += n + 1;
  }
  if (i + 5 > msg.length) return undefined;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(i + 1), end: i + 5 };
}

function aRecord(ip: string): Buffer {
  const r = Buffer.alloc(16);
  r.writeUInt16BE(0xc00c, 0); // the question's name
  r.writeUInt16BE(1, 2); // A
  r.writeUInt16BE(1, 4); // IN
  r.writeUInt32BE(60, 6);
  r.writeUInt16BE(4, 10);
  ip.split('.').forEach((o, k) => r.writeUInt8(Number(o), 12 + k));
  return r;
}
