"""RL Studio's `agent` reward (the shipped default agent) as TRL reward functions (standard library only).

Ports src/envs/agent/env.ts: two task families behind one prompt; the answer is the last
<answer>...</answer>, else "the answer is X" / "Answer: X", else the whole message (as search_qa).
calculator answers match numerically (as math), lookup answers by SQuAD exact match. Parts:
correctness, format (an <answer> tag), tool_use (the family's tool ran without error: python for
calculator, search for lookup) and the per-turn tool_errors. Dataset columns: `family`, `answer`.
Checked against the TypeScript environment on 500 rollouts by tests/unit/export-trl-rewards.test.ts.
"""
import rl_common as rc
from reward_math import answers_match
from reward_search_qa import exact_match, extract_answer

CONFIG = {
    "tolerance": 1e-12,  # relative tolerance of the calculator family's numeric comparison
}
WEIGHTS = {"correctness": 1, "format": 0.1, "tool_use": 0.1, "tool_errors": -0.1}
PARTS = ["correctness", "format", "tool_use", "tool_errors"]
FAMILY_TOOL = {"calculator": "python", "lookup": "search"}

configure = rc.configurer("reward_agent", CONFIG, WEIGHTS)


def grade(final_text, family, answer, tools_run):
    """The final parts of one answer (AgentEnv.grade); tools_run = names of the calls that succeeded."""
    if family not in FAMILY_TOOL:
        raise ValueError(f"reward_agent: family must be one of {sorted(FAMILY_TOOL)}, got {family!r} (dataset column `family`)")
    value, tagged = extract_answer(final_text)
    if value == "":
        correct = False
    elif family == "calculator":
        correct = answers_match(value, str(answer), CONFIG["tolerance"])
    else:
        correct = exact_match(value, str(answer)) == 1
    return {
        "correctness": 1 if correct else 0,
        "format": 1 if tagged else 0,
        "tool_use": 1 if FAMILY_TOOL[family] in tools_run else 0,
    }


def score(completion, family, answer, **_):
    """Every part of one episode and its weighted return (what RL Studio trains on)."""
    tools_run = [m.get("name") for m in rc.tool_messages(completion) if not rc.tool_failed(m)]
    final = grade(rc.last_assistant_text(completion), family, answer, tools_run)
    per_turn = rc.tool_errors_per_turn(completion)
    parts = dict(final, tool_errors=sum(per_turn))
    return {"parts": parts, "total": rc.episode_return(final, per_turn, WEIGHTS)}


# One function per part, named after it; GRPOConfig.reward_weights = [WEIGHTS[p] for p in PARTS].
REWARD_FUNCS = rc.part_functions(score, PARTS)
