/**
 * Sets environment variables that are not set yet. For entry points (tests, benchmarks) that give
 * themselves their own database, prefixes and namespace before the config module reads the environment.
 */
export function applyEnvironmentDefaults(defaults: Record<string, string>): void {
  for (const [name, value] of Object.entries(defaults)) {
    if (!process.env[name]) process.env[name] = value;
  }
}
