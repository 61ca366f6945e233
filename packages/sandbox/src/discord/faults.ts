import type { FaultSpec, RateLimitRoute } from './types';

interface ArmedFault {
  spec: FaultSpec;
  remaining: number;
}

/** Failures a test arms in advance; each matching request consumes one and gets the canned answer. */
export class FaultInjector {
  private faults: ArmedFault[] = [];

  inject(spec: FaultSpec): void {
    if (!Number.isInteger(spec.status) || spec.status < 400 || spec.status > 599) {
      throw new RangeError('a fault needs an HTTP error status (400–599)');
    }
    this.faults.push({ spec, remaining: spec.times ?? 1 });
  }

  clear(): void {
    this.faults = [];
  }

  take(method: string, template: string, bucket: RateLimitRoute): FaultSpec | undefined {
    const fault = this.faults.find(
      (f) =>
        f.remaining > 0 &&
        (!f.spec.method || f.spec.method.toUpperCase() === method) &&
        (!f.spec.route || f.spec.route === template || f.spec.route === bucket),
    );
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining === 0) this.faults = this.faults.filter((f) => f !== fault);
    return fault.spec;
  }
}
