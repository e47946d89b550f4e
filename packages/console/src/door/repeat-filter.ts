/**
 * A camera reads the same code in every frame while it is held up: a code is passed on
 * once, then ignored for as long as it keeps being seen and for `windowMs` after it was
 * last seen (docs/door.md, "Repeats").
 */
export class RepeatFilter {
  readonly #lastSeen = new Map<string, number>();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** True when the code should be acted on. */
  accept(code: string): boolean {
    const at = this.now();
    const last = this.#lastSeen.get(code);
    this.#lastSeen.set(code, at);
    for (const [seen, when] of this.#lastSeen) if (at - when >= this.windowMs) this.#lastSeen.delete(seen);
    return last === undefined || at - last >= this.windowMs;
  }
}
