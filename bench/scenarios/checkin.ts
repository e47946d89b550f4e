import type { ScenarioOptions, ScenarioResult } from './types.ts';
export async function checkInScenario(_opts: ScenarioOptions): Promise<ScenarioResult> {
  throw new Error('not written yet');
}
