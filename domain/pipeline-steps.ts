/**
 * What passes between a run's steps (docs/pipelines.md, "Between steps"). The legacy server summarised
 * an output over 1 500 characters with a model call; here the next step gets the previous result whole
 * up to STEP_INPUT_MAX characters (the size of `lastStepInput` in the contract), and a longer one is
 * cut there with a note saying so: no hidden model call, no cost, nothing lost below the bound.
 */
export const STEP_INPUT_MAX = 50_000;
/** pipeline_approval_required.previousOutput, pipeline_step_complete.result, pipeline_complete.results[].result. */
export const PREVIOUS_OUTPUT_MAX = 3_000;
export const STEP_COMPLETE_RESULT_MAX = 500;
export const STEP_RESULT_MESSAGE_MAX = 5_000;
/** A template may hold `{{input}}` many times: the prompt is bounded too. */
export const STEP_PROMPT_MAX = 200_000;
export function cutNote(kept: number, total: number): string {
  return `\n\n[saída do passo anterior cortada: ${kept} de ${total} caracteres]`;
}

/** The step's input (bounded) and its prompt: every `{{input}}` replaced; a null or empty template sends the input unchanged. */
export function stepInputOf(previous: string, template: string | null): { input: string; prompt: string } {
  const input = previous.length <= STEP_INPUT_MAX ? previous : previous.slice(0, STEP_INPUT_MAX) + cutNote(STEP_INPUT_MAX, previous.length);
  const whole = template ? template.split('{{input}}').join(input) : input;
  const prompt =
    whole.length <= STEP_PROMPT_MAX
      ? whole
      : whole.slice(0, STEP_PROMPT_MAX) + `\n\n[prompt cortado: ${STEP_PROMPT_MAX} de ${whole.length} caracteres]`;
  return { input, prompt };
}
