import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface LoggedRequest {
  at: number;
  done?: number;
  path: string;
  webhookId: string;
  deliveryId: string;
  status: number;
  body: string;
}

/** test/helpers/receiver-process.mjs as a child process (loopback only). */
export class ReceiverProcess {
  private child?: ChildProcess;
  base = '';
  constructor(private readonly rules: Record<string, { delayMs?: number; failFirst?: Record<string, number> }> = {}) {}

  async start(): Promise<string> {
    const script = fileURLToPath(new URL('./receiver-process.mjs', import.meta.url));
    this.child = spawn(process.execPath, [script], {
      env: { ...process.env, RECEIVER_RULES: JSON.stringify(this.rules) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const port = await new Promise<string>((resolve, reject) => {
      let out = '';
      this.child!.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening (\d+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      this.child!.once('exit', () => reject(new Error('receiver exited')));
    });
    this.base = `http://127.0.0.1:${port}`;
    return this.base;
  }

  async requests(): Promise<LoggedRequest[]> {
    return (await (await fetch(`${this.base}/__log`)).json()) as LoggedRequest[];
  }

  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child!.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}
