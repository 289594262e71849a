// The `story` environment: a verifiable reward small enough for stories260K. Each task names a
// word the story must mention (and optionally a target length in words); the final reward parts
// are `mentions` (1 when the word appears, whole word, any case) and `length` (1 at the target,
// falling linearly to 0 at twice or zero times it). No tools. Tasks come from storyTasks() (no
// dataset file needed). Tested by tests/unit/rl/rl-grpo.test.ts (story runs); trained by
// scripts/experiment-stories-grpo.ts and configs/stories_grpo.yaml.
import type { ChatMessage } from '../../agents/chat-template';
import type { TaskBase } from '../../data/schemas';
import type { Tool } from '../../tools/registry';
import { resolveWeights, weigh } from '../reward';
import type { EpisodeState, RewardBreakdown, RewardWeights } from '../types';

export interface StoryTask extends TaskBase {
  /** The word the story should mention. */
  word: string;
  /** Target story length in words (0: no length part). */
  target_words: number;
}

export interface StoryEnvConfig {
  /** The user message; `{word}` is replaced by the task's word. */
  prompt: string;
  /** Weights of `mentions` and `length`. */
  weights: RewardWeights;
}

export const defaultStoryEnvConfig: StoryEnvConfig = {
  prompt: 'Tell a story about {word}.',
  weights: { mentions: 1, length: 0 },
};

/** n tasks cycling through `words` (task i asks for words[i % words.length]). */
export function storyTasks(words: readonly string[], n: number, targetWords = 0): StoryTask[] {
  if (!words.length) throw new Error('story: no words to ask for; set env.story_words to a list such as [dog, ball]');
  for (const w of words) if (!/^[\p{L}\p{N}'-]+$/u.test(w)) throw new Error(`story: "${w}" is not a single word; env.story_words takes single words`);
  return Array.from({ length: n }, (_, i) => ({ task_id: `story-${i}`, metadata: {}, word: words[i % words.length], target_words: targetWords }));
}

/** Whole-word, case-insensitive mention of `word` in `text`. */
export function mentions(text: string, word: string): boolean {
  const esc = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}\\p{N}])${esc}($|[^\\p{L}\\p{N}])`, 'iu').test(text);
}

/** 1 at the target length, linearly down to 0 at 0 or 2x the target words. */
export function lengthScore(text: string, target: number): number {
  if (!(target > 0)) return 0;
  const n = text.split(/\s+/).filter(Boolean).length;
  return Math.max(0, 1 - Math.abs(n - target) / target);
}

export class StoryEnv {
  readonly name = 'story';
  readonly config: StoryEnvConfig;
  readonly weights: RewardWeights;

  constructor(config: Partial<StoryEnvConfig> = {}) {
    this.config = { ...defaultStoryEnvConfig, ...config, weights: resolveWeights('story', defaultStoryEnvConfig.weights, config.weights) };
    this.weights = this.config.weights;
  }

  tools(): Tool[] {
    return [];
  }

  systemPrompt(_task: StoryTask): string {
    return '';
  }

  initialMessages(task: StoryTask): ChatMessage[] {
    return [{ role: 'user', content: this.config.prompt.replaceAll('{word}', task.word) }];
  }

  /** One turn is the whole story. */
  onTurn() {
    return { done: true };
  }

  /** Grades the story (every assistant message of the episode, joined). */
  grade(task: StoryTask, story: string): RewardBreakdown {
    const parts = { mentions: mentions(story, task.word) ? 1 : 0, length: lengthScore(story, task.target_words) };
    return weigh(parts, this.weights, { extracted: story.slice(0, 200) });
  }

  async finalReward(task: StoryTask, _state: EpisodeState, transcript: ChatMessage[]): Promise<RewardBreakdown> {
    return this.grade(task, transcript.filter((m) => m.role === 'assistant').map((m) => m.content).join('\n'));
  }
}
