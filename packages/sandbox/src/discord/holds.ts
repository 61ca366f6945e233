import type { RateLimitRoute } from './types';

/**
 * When a held request is let through: `after` Discord applies it and the answer never arrives until
 * released (the change is made, the network lost the answer: a client that dies now never learns
 * it); `before` the request waits before Discord applies anything (still on its way).
 */
export type HoldPoint = 'before' | 'after';

export interface HoldSpec {
  method?: string;
  /** Route template without the method (`/guilds/:g/members/:u/roles/:r`) or a rate-limit route; any when absent. */
  route?: string;
  point?: HoldPoint;
  /** How many matching requests are held; 1 when absent. */
  times?: number;
}

export interface Hold {
  /** Requests held right now. */
  waiting(): number;
  /** Resolves once `count` (1 when absent) requests have been held, in total. */
  waitForHeld(count?: number, timeoutMs?: number): Promise<void>;
  /** Lets every held request go on and stops holding. */
  release(): void;
}

interface ArmedHold {
  spec: HoldSpec;
  remaining: number;
  held: number;
  waiting: number;
  released: boolean;
  gate: Promise<void>;
  open(): void;
  watchers: Array<{ count: number; resolve(): void }>;
}

/** Requests a test holds on their way through the stand-in (network delays and lost answers). */
export class HoldRegistry {
  private holds: ArmedHold[] = [];

  hold(spec: HoldSpec): Hold {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const armed: ArmedHold = { spec, remaining: spec.times ?? 1, held: 0, waiting: 0, released: false, gate, open, watchers: [] };
    this.holds.push(armed);
    return {
      waiting: () => armed.waiting,
      waitForHeld: (count = 1, timeoutMs = 10_000) =>
        armed.held >= count
          ? Promise.resolve()
          : new Promise<void>((resolve, reject) => {
              const timer = setTimeout(() => reject(new Error(`fewer than ${count} requests were held within ${timeoutMs} ms`)), timeoutMs);
              armed.watchers.push({
                count,
                resolve: () => {
                  clearTimeout(timer);
                  resolve();
                },
              });
            }),
      release: () => this.release(armed),
    };
  }

  private release(armed: ArmedHold): void {
    armed.released = true;
    armed.remaining = 0;
    armed.open();
    this.holds = this.holds.filter((h) => h !== armed);
  }

  releaseAll(): void {
    for (const h of [...this.holds]) this.release(h);
  }

  /** The gate a matching request waits on at `point`, or null; counts the request as held. */
  take(method: string, template: string, bucket: RateLimitRoute, point: HoldPoint): Promise<void> | null {
    const armed = this.holds.find(
      (h) =>
        !h.released &&
        h.remaining > 0 &&
        (h.spec.point ?? 'after') === point &&
        (!h.spec.method || h.spec.method.toUpperCase() === method) &&
        (!h.spec.route || h.spec.route === template || h.spec.route === bucket),
    );
    if (!armed) return null;
    armed.remaining -= 1;
    armed.held += 1;
    armed.waiting += 1;
    for (const w of armed.watchers.filter((x) => armed.held >= x.count)) w.resolve();
    armed.watchers = armed.watchers.filter((x) => armed.held < x.count);
    return armed.gate.then(() => {
      armed.waiting -= 1;
    });
  }
}
