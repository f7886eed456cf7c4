/**
 * Admission for costly work: at most `running` at once, at most `waiting` queued behind them, in
 * arrival order; one more is refused at once (enter() gives undefined) instead of joining a queue
 * that only grows.
 *
 * @module domain/admission
 */
export class Admission {
  #running = 0;
  readonly #queue: (() => void)[] = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  /** Resolves with a release function once admitted; undefined when the queue is full. */
  enter(): Promise<(() => void) | undefined> {
    if (this.#running < this.running) {
      this.#running++;
      return Promise.resolve(this.#releaser());
    }
    if (this.#queue.length >= this.waiting) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#queue.push(() => resolve(this.#releaser())));
  }

  /** A place now if one is free, never a place in the queue: undefined otherwise. */
  tryEnter(): (() => void) | undefined {
    if (this.#running >= this.running) return undefined;
    this.#running++;
    return this.#releaser();
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      // The place passes straight to the next in line.
      if (next) next();
      else this.#running--;
    };
  }
}
