import type { ScenarioOptions, ScenarioResult } from './types.ts';
export async function webhooksScenario(_opts: ScenarioOptions): Promise<ScenarioResult> {
  throw new Error('not written yet');
}
