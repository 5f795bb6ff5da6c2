/** The editable data of an agent: what a version stores, export carries and import reads. */
export interface AgentData {
  name: string;
  description: string;
  /** null: the service settings' default model. */
  model: string | null;
  instructions: string;
  /** null: the service settings' working directory. */
  workingDirectory: string | null;
  permissionMode: string;
  maxTurns: number;
}

/** Picks the data fields of a row, in a fixed order (versions and exports compare equal). */
export function agentDataOf(source: AgentData): AgentData {
  return {
    name: source.name,
    description: source.description,
    model: source.model,
    instructions: source.instructions,
    workingDirectory: source.workingDirectory,
    permissionMode: source.permissionMode,
    maxTurns: source.maxTurns,
  };
}
