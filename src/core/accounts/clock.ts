/** Wall-clock milliseconds. Injectable so quota, rate-window and lease tests run on a fake clock. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that only moves when told to. `sleep` lets code under test wait for fake time (for example a
 * client honouring Retry-After) and wakes when `advance` passes the deadline.
 */
export class ManualClock implements Clock {
  #now: number;
  #sleepers: Array<{ until: number; wake: () => void }> = [];

  constructor(startMs: number) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  /** How many callers are currently waiting in `sleep`. */
  get sleeping(): number {
    return this.#sleepers.length;
  }

  advance(ms: number): void {
    this.#now += ms;
    const due = this.#sleepers.filter((s) => s.until <= this.#now);
    this.#sleepers = this.#sleepers.filter((s) => s.until > this.#now);
    for (const sleeper of due) sleeper.wake();
  }

  sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((wake) => this.#sleepers.push({ until: this.#now + ms, wake }));
  }
}

/** The billing period of a timestamp: its calendar month in UTC, as `YYYY-MM`. */
export function utcMonth(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** Start (inclusive) and end (exclusive) of the UTC month holding `ms`. */
export function utcMonthBounds(ms: number): { start: number; end: number } {
  const d = new Date(ms);
  return {
    start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}
