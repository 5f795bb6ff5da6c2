import type http from 'node:http';
import type { RecordedRequest, TextDeltaListener } from './server';
import { geminiApi } from './gemini';
import { openaiResponses } from './openai-responses';

/**
 * The model APIs the stand-in speaks besides Anthropic's Messages API (server.ts), one module each:
 * OpenAI's Responses API for Codex CLI, Gemini's generateContent for Gemini CLI. Each answers the
 * requests it `matches` with the same scripted scenarios (scenarios.ts) in its own wire format.
 */
export interface ModelProtocol {
  /** Short name, recorded as the request's `answer` prefix (`<name>:scenario:<scenario>`). */
  readonly name: string;
  matches(method: string, path: string): boolean;
  answer(response: http.ServerResponse, recorded: RecordedRequest, context: ProtocolContext): Promise<void>;
}

export interface ProtocolContext {
  /** The reply when the prompt names no scenario. */
  defaultReply: string;
  onTextDelta?: TextDeltaListener;
}

export const MODEL_PROTOCOLS: readonly ModelProtocol[] = [openaiResponses, geminiApi];

export function protocolFor(method: string, path: string): ModelProtocol | null {
  return MODEL_PROTOCOLS.find((protocol) => protocol.matches(method, path)) ?? null;
}
