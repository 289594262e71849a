// The glue the agent loop calls around an Environment: create the episode state, record each
// assistant turn (its tool calls, its weighted per-turn reward) through stepEnvironment, and end
// with finishEpisode, which returns the final breakdown and the configurable weighted return.
// Tested by tests/unit/envs/env-episode.test.ts.
import type { ChatMessage } from '../agents/chat-template';
import type { Task } from '../data/schemas';
import { countMalformed } from './transcript';
import { episodeReturn, weigh, type EpisodeReward } from './reward';
import type { Environment, EpisodeState, TurnOutcome, TurnToolResult } from './types';

export function createEpisodeState(episodeId: string, signal?: AbortSignal): EpisodeState {
  const s: EpisodeState = { episodeId, turn: 0, toolCalls: [], malformedCalls: 0, turnRewards: [], data: {} };
  if (signal) s.signal = signal;
  return s;
}

/** After an assistant turn and its tool calls: updates `state`, returns the env's outcome. */
export async function stepEnvironment<T extends Task>(
  env: Environment<T>,
  task: T,
  state: EpisodeState,
  assistantText: string,
  toolResults: TurnToolResult[],
): Promise<TurnOutcome> {
  state.turn++;
  state.toolCalls.push(...toolResults);
  state.malformedCalls += countMalformed(assistantText, toolResults);
  const outcome = env.onTurn ? await env.onTurn(task, state, assistantText, toolResults) : {};
  state.turnRewards.push(weigh(outcome.reward ?? {}, env.weights));
  return outcome;
}

/** The end of the episode: the env's final reward and the return (turns + final, weighted). */
export async function finishEpisode<T extends Task>(env: Environment<T>, task: T, state: EpisodeState, transcript: ChatMessage[]): Promise<EpisodeReward> {
  const final = await env.finalReward(task, state, transcript);
  return episodeReturn(state.turnRewards, final);
}
