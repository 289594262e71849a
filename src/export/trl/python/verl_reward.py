"""verl's custom reward function for an RL Studio bundle (custom_reward_function.path).

verl calls compute_score(data_source, solution_str, ground_truth, extra_info) per response;
data_source is "rl_studio/<env>" and extra_info carries the reward columns (see
verl/train.jsonl). The response is graded as one assistant turn by the same reward file TRL
uses, with the weights of reward_config.json; the dict gives verl the total as "score" and
every part for its logs. Standard library only; tested by tests/unit/export/export-trl-bundle.test.ts.
"""
import importlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
_modules = {}


def _module(env):
    if env not in _modules:
        with open(os.path.join(HERE, "reward_config.json"), encoding="utf-8") as f:
            rewards = json.load(f)
        module = importlib.import_module(f"reward_{env}")
        if rewards["env"] == env:
            module.configure(weights=rewards["weights"], **rewards["config"])
        _modules[env] = module
    return _modules[env]


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    env = data_source.split("/", 1)[1] if data_source.startswith("rl_studio/") else data_source
    columns = {k: v for k, v in (extra_info or {}).items() if k not in ("index", "split", "task_id")}
    result = _module(env).score([{"role": "assistant", "content": solution_str}], **columns)
    return dict(result["parts"], score=result["total"])
