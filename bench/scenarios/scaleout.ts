import type { ScenarioOptions, ScenarioResult } from './types.ts';
export async function scaleOutScenario(_opts: ScenarioOptions): Promise<ScenarioResult> {
  throw new Error('not written yet');
}
