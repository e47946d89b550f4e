/** What every scenario returns: figures (numbers, medians taken over runs), checks and goals. */
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface Goal {
  name: string;
  /** Marquee / baseline (or deep / first) from the figures of the same run, or a figure itself (its bound in its units). */
  ratio: number;
  /** The bound the ratio must meet. */
  bound: number;
  /** 'min': ratio >= bound; 'max': ratio <= bound. */
  kind: 'min' | 'max';
}

export interface ScenarioResult {
  figures: Record<string, number>;
  checks: Check[];
  goals: Goal[];
  notes?: string[];
}

export interface ScenarioOptions {
  /** Scales sizes and durations down for a quick smoke run. */
  quick: boolean;
  /** Directory for --cpu-prof output of the API process, when profiling. */
  cpuProfDir?: string;
}

export function check(name: string, ok: boolean, detail: string): Check {
  return { name, ok, detail };
}
