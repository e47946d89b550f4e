/**
 * A keyboard-wedge scanner (docs/door.md, "Keyboard-wedge scanners"): a handheld scanner that types
 * the code it reads, fast, then Enter. While the code field has focus it is plain typing
 * into the field; anywhere else on the page, the keys are gathered here and a burst ended
 * by Enter is a scan. A person typing is far slower than a scanner: a gap longer than
 * `maxGapMs` between two keys starts the burst again, so stray keys are never a scan.
 */
const MAX_GAP_MS = 50;

export class WedgeBuffer {
  #chars = '';
  #lastAt = -Infinity;

  constructor(private readonly maxGapMs = MAX_GAP_MS) {}

  /** One key (KeyboardEvent.key) at `at` ms; answers the code when Enter ends a burst. */
  key(key: string, at: number): string | undefined {
    const gap = at - this.#lastAt;
    this.#lastAt = at;
    if (gap > this.maxGapMs) this.#chars = '';
    if (key === 'Enter') {
      const code = this.#chars;
      this.#chars = '';
      return code.trim() === '' ? undefined : code;
    }
    if (key.length === 1) this.#chars += key;
    return undefined;
  }
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** Listens on the whole window; answers the function that stops listening. */
export function listenForWedge(onCode: (code: string) => void, target: Window = window): () => void {
  const buffer = new WedgeBuffer();
  const listener = (event: KeyboardEvent) => {
    if (isTyping(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
    const code = buffer.key(event.key, event.timeStamp);
    if (code !== undefined) {
      event.preventDefault();
      onCode(code);
    }
  };
  target.addEventListener('keydown', listener);
  return () => target.removeEventListener('keydown', listener);
}
