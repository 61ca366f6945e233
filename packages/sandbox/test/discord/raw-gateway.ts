import { WebSocket } from 'ws';

export interface Frame {
  op: number;
  t?: string | null;
  s?: number | null;
  d?: unknown;
}

/** A bare gateway client that keeps every frame and the close code. */
export class RawGateway {
  readonly frames: Frame[] = [];
  readonly closed: Promise<number>;
  private readonly ws: WebSocket;
  private waiters: Array<() => void> = [];

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)) as Frame);
      for (const w of this.waiters.splice(0)) w();
    });
    this.closed = new Promise((resolve) => this.ws.on('close', (code) => resolve(code)));
  }

  send(frame: Frame): void {
    this.ws.send(JSON.stringify(frame));
  }

  async frame(predicate: (f: Frame) => boolean): Promise<Frame> {
    for (;;) {
      const found = this.frames.find(predicate);
      if (found) return found;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  close(code = 1000): void {
    this.ws.close(code);
  }
}
