"""RL Studio's `story` reward as TRL reward functions (standard library only).

Ports src/envs/story/env.ts: `mentions` is 1 when the task's word appears as a whole word (any
case) in the story (every assistant message, joined by newlines); `length` is 1 at the target
word count, falling linearly to 0 at zero or twice the target (0 when no target). Dataset
columns: `word`, `target_words`. Checked against the TypeScript environment by
tests/unit/export/export-trl-rewards.test.ts.
"""
import re

import rl_common as rc

CONFIG = {}
WEIGHTS = {"mentions": 1, "length": 0}
PARTS = ["mentions", "length"]
_SPLIT_RE = re.compile(f"{rc.WS}+")


configure = rc.configurer("reward_story", CONFIG, WEIGHTS)


def mentions(text, word):
    """Whole-word, case-insensitive: no letter or digit on either side."""
    return re.search(rf"(?:^|[\W_]){re.escape(word)}(?:\Z|[\W_])", text, re.I) is not None


def length_score(text, target):
    if not target > 0:
        return 0
    n = len([t for t in _SPLIT_RE.split(text) if t])
    return max(0, 1 - abs(n - target) / target)


def score(completion, word, target_words=0, **_):
    """Both parts of one story and its weighted return (what RL Studio trains on)."""
    story = "\n".join(rc.content_text(m) for m in rc.as_messages(completion) if m.get("role") == "assistant")
    parts = {"mentions": 1 if mentions(story, word) else 0, "length": length_score(story, target_words)}
    return {"parts": parts, "total": rc.episode_return(parts, [], WEIGHTS) + 0}


# One function per part, named after it; GRPOConfig.reward_weights = [WEIGHTS[p] for p in PARTS].
REWARD_FUNCS = rc.part_functions(score, PARTS)
