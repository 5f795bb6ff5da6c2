import fs from 'node:fs';
import path from 'node:path';
import type { AgentCli, AgentEvent } from '../../activities/agents/agent-cli';
import type { OutputChunk } from '../../lib/live-output';

/**
 * The unit suites of a CLI adapter (test/unit/codex-cli.test.ts, gemini-cli.test.ts) over the lines
 * the pinned CLI really printed against the stand-in model, kept in test/fixtures/cli-streams/<cli name>/.
 */
export function cliStreams(cli: AgentCli) {
  const folder = path.join(__dirname, '..', 'fixtures', 'cli-streams', cli.name);

  /** A captured file (`<name>.jsonl`) as it is. */
  const capturedText = (name: string): string => fs.readFileSync(path.join(folder, `${name}.jsonl`), 'utf8');
  /** The lines of a captured stream, without empty ones. */
  const captured = (name: string): string[] =>
    capturedText(name)
      .split('\n')
      .filter((line) => line.trim() !== '');

  return {
    capturedText,
    captured,
    /** The events a fresh parser gives for these lines, its end included. */
    parseAll: (lines: string[]): AgentEvent[] => {
      const parser = cli.parser();
      return [...lines.flatMap((line) => parser.line(line)), ...parser.end()];
    },
    /** The terminal lines a fresh output mapper gives for this standard output, then this standard error, its end included. */
    mapAll: (stdout: string[], stderr: string[] = []): OutputChunk[] => {
      const mapper = cli.outputMapper();
      return [...stdout.flatMap((line) => mapper.stdout(line)), ...stderr.flatMap((line) => mapper.stderr(line)), ...mapper.end()];
    },
    /** A field of a captured stream's first line (the CLI's init line: its thread or session id). */
    initField: (name: string, field: string): string => (JSON.parse(captured(name)[0]!) as Record<string, string>)[field]!,
  };
}

/** The events of a server-sent stream in which each event is an `event: <type>` line and a `data: <json>` line. */
export function sseEvents(text: string): Array<Record<string, unknown>> {
  return text
    .trim()
    .split('\n\n')
    .map((block) => {
      const [event, data] = block.split('\n');
      const parsed = JSON.parse(data!.slice('data: '.length)) as Record<string, unknown>;
      expect(event).toBe(`event: ${String(parsed.type)}`);
      return parsed;
    });
}
