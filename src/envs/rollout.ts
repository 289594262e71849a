// Environments plugged into the agent loop (src/agents/loop.ts runEpisodes): one prompt per task
// from env.initialMessages, a registry holding env.tools(), an onTurn hook that steps the episode
// (per-turn rewards, ending it, feedback messages such as failing tests), and rewards() that grades every finished episode from its
// messages. Episode index = prompt * G + sample, as the loop numbers them.
// Tested by tests/unit/envs/env-rollout.test.ts (the real loop, a scripted policy, real tools).
import type { EpisodeResult } from '../agents/episode-tokens';
import type { AgentHooks, EpisodeSpec } from '../agents/loop';
import type { Task } from '../data/schemas';
import { ToolRegistry, type RegistryOptions } from '../tools/registry';
import { createEpisodeState, finishEpisode, stepEnvironment } from './episode-steps';
import type { EpisodeReward } from './reward';
import type { Environment, EpisodeState } from './types';

export interface EnvRollout {
  /** One per task, in order: pass as runEpisodes({ prompts }). */
  prompts: EpisodeSpec[];
  /** A fresh registry with the environment's tools: pass as runEpisodes({ registry }). */
  registry: ToolRegistry;
  /** Pass as runEpisodes({ hooks }) (wrap it to add your own onStep / onEpisodeEnd). */
  hooks: Required<Pick<AgentHooks, 'onTurn'>>;
  /** The state of each episode index touched so far. */
  states: Map<number, EpisodeState>;
  /** After runEpisodes: the reward of every episode, in the order given. */
  rewards(episodes: EpisodeResult[]): Promise<EpisodeReward[]>;
}

export function envRollout<T extends Task>(env: Environment<T>, tasks: T[], samplesPerPrompt: number, registryOptions: Partial<RegistryOptions> = {}): EnvRollout {
  if (!Number.isInteger(samplesPerPrompt) || samplesPerPrompt < 1) throw new Error(`envRollout: samplesPerPrompt must be a positive integer, got ${samplesPerPrompt}`);
  if (!tasks.length) throw new Error('envRollout: no tasks (sample some with sampleTasks or TaskSampler first)');
  const registry = new ToolRegistry(registryOptions);
  for (const t of env.tools()) registry.register(t);
  const states = new Map<number, EpisodeState>();
  const taskOf = (index: number): T => {
    const task = tasks[Math.floor(index / samplesPerPrompt)];
    if (!task) throw new Error(`envRollout: episode ${index} has no task (${tasks.length} tasks x ${samplesPerPrompt} samples)`);
    return task;
  };
  const stateOf = (index: number, id?: string): EpisodeState => {
    let s = states.get(index);
    if (!s) states.set(index, (s = createEpisodeState(id ?? `episode-${index}`)));
    if (id) s.episodeId = id;
    return s;
  };
  return {
    prompts: tasks.map((t) => ({ messages: env.initialMessages(t) })),
    registry,
    states,
    hooks: {
      async onTurn(index, assistantText, toolResults) {
        const outcome = await stepEnvironment(env, taskOf(index), stateOf(index), assistantText, toolResults);
        return { done: outcome.done, ...(outcome.feedback?.length ? { feedback: outcome.feedback } : {}) };
      },
    },
    rewards: (episodes) => Promise.all(episodes.map((e) => finishEpisode(env, taskOf(e.index), stateOf(e.index, e.id), e.messages))),
  };
}
