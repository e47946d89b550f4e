/**
 * The door's sounds, made with Web Audio (docs/door.md, "Sounds"): one high beep for
 * admitted, two low ones for refused, one middle one for a scan queued unverified, so a
 * steward hears the verdict without looking. No
 * audio files. Browsers start an AudioContext only after a user gesture, so unlock() is
 * called from one (the Start button, a typed code's Enter).
 */
export type Tone = 'admitted' | 'refused' | 'queued';

const TONES: Record<Tone, { hz: number; starts: number[] }> = {
  admitted: { hz: 1320, starts: [0] },
  refused: { hz: 220, starts: [0, 0.2] },
  queued: { hz: 660, starts: [0] },
};
const BEEP_S = 0.14;
const VOLUME = 0.3;

export class Beeper {
  #context: AudioContext | undefined;

  unlock(): void {
    this.#context ??= new AudioContext();
    if (this.#context.state === 'suspended') void this.#context.resume();
  }

  play(tone: Tone): void {
    const context = this.#context;
    if (!context) return;
    const { hz, starts } = TONES[tone];
    for (const start of starts) {
      const at = context.currentTime + start;
      const oscillator = context.createOscillator();
      const gain = context.createGain();
      oscillator.type = tone === 'admitted' ? 'sine' : 'square';
      oscillator.frequency.value = hz;
      // A short ramp in and out: a hard start or stop clicks.
      gain.gain.setValueAtTime(0, at);
      gain.gain.linearRampToValueAtTime(VOLUME, at + 0.01);
      gain.gain.setValueAtTime(VOLUME, at + BEEP_S - 0.02);
      gain.gain.linearRampToValueAtTime(0, at + BEEP_S);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(at);
      oscillator.stop(at + BEEP_S);
    }
  }
}
