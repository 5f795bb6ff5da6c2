import readline from 'node:readline';
import type { Readable } from 'node:stream';
import type { OutputChunk } from '../../../lib/live-output';
import type { AgentCli, AgentEvent, LineParser, OutputMapper, ParserContext } from '../agent-cli';
import { cut, HeadText, TailText } from './bounded-text';
import type { DeliveryQueue } from './delivery-queue';
import type { AgentRunSummary } from './run-summary';

export interface RunOutputOptions {
  cli: AgentCli;
  /** Each parsed line of standard output, in order. */
  onEvent?: (event: AgentEvent) => void | Promise<void>;
  /** The run's terminal lines (the CLI's output mapper over standard output and error). */
  onOutput?: (chunk: OutputChunk) => void | Promise<void>;
  maxOutputChars: number;
  maxStderrChars: number;
  /** What the parser is told before the first line (the resumed session's tokens so far). */
  parserContext?: ParserContext;
}

/**
 * What one run prints, read: standard output split into lines, each parsed by the CLI's adapter into
 * the summary (session, result fields, the assistant's text, bounded) and handed on in order through
 * the delivery queue, with the terminal lines of standard output and error (a line's events come
 * before its chunks). Standard error's end is kept.
 */
export class RunOutput {
  private readonly output: HeadText;
  private readonly stderr: TailText;
  private readonly mapper: OutputMapper | null;
  private readonly parser: LineParser;
  /** Standard error not yet ended by a newline (for the terminal lines). */
  private stderrLine = '';
  private textMessages = 0;
  private _resultIsError = false;
  private lines: readline.Interface | undefined;

  constructor(
    private readonly options: RunOutputOptions,
    private readonly summary: AgentRunSummary,
    private readonly queue: DeliveryQueue,
  ) {
    this.output = new HeadText(options.maxOutputChars);
    this.stderr = new TailText(options.maxStderrChars);
    this.mapper = options.onOutput === undefined ? null : options.cli.outputMapper();
    this.parser = options.cli.parser(options.parserContext);
  }

  /** The CLI's result event said the run failed. */
  get resultIsError(): boolean {
    return this._resultIsError;
  }

  /** The end of standard error so far. */
  stderrTail(): string {
    return this.stderr.text();
  }

  /** Reads the process's standard error and output until they end. */
  read(stdout: Readable, stderr: Readable): void {
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => this.stderrData(chunk));
    this.lines = readline.createInterface({ input: stdout, crlfDelay: Infinity });
    this.lines.on('line', (line) => this.stdoutLine(line));
  }

  /** The process ended: no more lines; what the parser and the mapper still held is delivered. */
  end(): void {
    this.lines?.close();
    for (const event of this.parser.end()) this.deliverEvent(event);
    if (this.mapper === null) return;
    if (this.stderrLine !== '') this.deliverChunks(this.mapper.stderr(this.stderrLine));
    this.deliverChunks(this.mapper.end());
  }

  /** The bounded output and standard error into the summary. */
  summarise(): void {
    this.summary.output = this.output.text();
    this.summary.outputTruncated = this.output.truncated;
    this.summary.stderr = this.stderr.text();
  }

  private stderrData(chunk: string): void {
    this.stderr.append(chunk);
    if (this.mapper === null) return;
    // Whole lines only; a line longer than the kept tail is cut there rather than held without end.
    this.stderrLine += chunk;
    const lineEnd = this.stderrLine.lastIndexOf('\n');
    if (lineEnd === -1 && this.stderrLine.length < this.stderr.limit) return;
    const ready = lineEnd === -1 ? this.stderrLine : this.stderrLine.slice(0, lineEnd);
    this.stderrLine = lineEnd === -1 ? '' : this.stderrLine.slice(lineEnd + 1);
    for (const line of ready.split('\n')) this.deliverChunks(this.mapper.stderr(line));
  }

  private stdoutLine(line: string): void {
    if (line.trim() === '') return;
    for (const event of this.parser.line(line)) this.deliverEvent(event);
    if (this.mapper !== null) this.deliverChunks(this.mapper.stdout(line));
  }

  private deliverEvent(event: AgentEvent): void {
    this.intoSummary(event);
    const onEvent = this.options.onEvent;
    if (onEvent !== undefined) this.queue.enqueue(() => onEvent(event));
  }

  private intoSummary(event: AgentEvent): void {
    const summary = this.summary;
    if (event.kind === 'init') summary.sessionId = event.sessionId;
    if (event.kind === 'text') {
      this.output.append(this.textMessages === 0 ? event.text : `\n${event.text}`);
      this.textMessages += 1;
    }
    if (event.kind === 'result') {
      summary.sessionId = event.sessionId ?? summary.sessionId;
      summary.costUsd = event.costUsd;
      summary.durationMs = event.durationMs;
      summary.turns = event.turns;
      summary.tokens = event.tokens;
      summary.resultText = event.resultText === null ? null : cut(event.resultText, this.output.limit);
      this._resultIsError = event.isError;
    }
  }

  private deliverChunks(chunks: OutputChunk[]): void {
    const onOutput = this.options.onOutput;
    if (onOutput !== undefined) for (const chunk of chunks) this.queue.enqueue(() => onOutput(chunk));
  }
}
