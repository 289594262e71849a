"""RL Studio's `search_qa` (SQuAD) reward as TRL reward functions (standard library only).

Ports src/envs/search/env.ts and squad-metrics.ts: the answer is the last <answer>...</answer>,
else "the answer is X" / "Answer: X", else the whole message; EM and token F1 after SQuAD v1.1
normalisation, max over the gold answers. Parts: correctness (f1 or em), em, f1, format (an
<answer> tag), tool_use (a search ran), and the per-turn tool_errors. Dataset column: `answers`.
Checked against the TypeScript environment by tests/unit/export/export-trl-rewards.test.ts.
"""
import re

import rl_common as rc

WS = rc.WS
CONFIG = {
    "correctness": "f1",  # f1 | em: which score is `correctness`
    "tool_use": "searched",  # searched | off
}
WEIGHTS = {"correctness": 1, "em": 0, "f1": 0, "format": 0.1, "tool_use": 0.1, "tool_errors": -0.1}
PARTS = ["correctness", "em", "f1", "format", "tool_use", "tool_errors"]

_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_TAG_RE = re.compile(r"<answer>([\s\S]*?)</answer>", re.I | re.A)
_SAID_RE = re.compile(rf"(?<![A-Za-z0-9_])answer{WS}*(?:is|:){WS}*:?{WS}*([^\n]+)", re.I | re.A)
_SPLIT_RE = re.compile(f"{WS}+")


configure = rc.configurer("reward_search_qa", CONFIG, WEIGHTS)


def _is_word(ch):
    return ch == "_" or ch.isalpha() or ch.isnumeric()


def _articles_js(s):
    """/(?<![\\p{L}\\p{N}_])(a|an|the)(?![\\p{L}\\p{N}_])/gu -> ' ' (leftmost, longest-first alternation)."""
    out, i, n = [], 0, len(s)
    while i < n:
        hit = None
        if i == 0 or not _is_word(s[i - 1]):
            for w in ("a", "an", "the"):
                if s.startswith(w, i) and (i + len(w) == n or not _is_word(s[i + len(w)])):
                    hit = w
                    break
        if hit:
            out.append(" ")
            i += len(hit)
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def normalize_answer(s):
    no_punct = "".join(ch for ch in s.lower() if ch not in _PUNCT)
    return " ".join(t for t in _SPLIT_RE.split(_articles_js(no_punct)) if t)


def exact_match(prediction, gold):
    return 1 if normalize_answer(prediction) == normalize_answer(gold) else 0


def f1_score(prediction, gold):
    p = [t for t in normalize_answer(prediction).split(" ") if t]
    g = [t for t in normalize_answer(gold).split(" ") if t]
    counts = {}
    for t in g:
        counts[t] = counts.get(t, 0) + 1
    same = 0
    for t in p:
        if counts.get(t, 0) > 0:
            same += 1
            counts[t] -= 1
    if same == 0:
        return 0
    precision = same / len(p)
    recall = same / len(g)
    return (2 * precision * recall) / (precision + recall)


def max_over_golds(metric, prediction, golds):
    best = 0
    for g in golds:
        best = max(best, metric(prediction, g))
    return best


def extract_answer(message):
    """(value, tagged), as extractQaAnswer."""
    text = rc.strip_tool_calls(message)
    tags = list(_TAG_RE.finditer(text))
    if tags:
        return rc.js_trim(tags[-1].group(1)), True
    said = list(_SAID_RE.finditer(text))
    if said:
        return re.sub(r"\.\Z", "", rc.js_trim(said[-1].group(1))), False
    return rc.js_trim(text), False


def grade(final_text, answers, searches):
    """The final parts of one answer (SearchQaEnv.grade)."""
    value, tagged = extract_answer(final_text)
    em = max_over_golds(exact_match, value, answers) if value else 0
    f1 = max_over_golds(f1_score, value, answers) if value else 0
    parts = {"correctness": em if CONFIG["correctness"] == "em" else f1, "em": em, "f1": f1, "format": 1 if tagged else 0}
    if CONFIG["tool_use"] == "searched":
        parts["tool_use"] = 1 if searches > 0 else 0
    return parts


def score(completion, answers, **_):
    """Every part of one episode and its weighted return (what RL Studio trains on)."""
    searches = sum(1 for m in rc.tool_messages(completion) if m.get("name") == "search" and not rc.tool_failed(m))
    final = grade(rc.last_assistant_text(completion), list(answers), searches)
    per_turn = rc.tool_errors_per_turn(completion)
    parts = dict(final, tool_errors=sum(per_turn))
    return {"parts": parts, "total": rc.episode_return(final, per_turn, WEIGHTS)}


# One function per part, named after it; GRPOConfig.reward_weights = [WEIGHTS[p] for p in PARTS].
REWARD_FUNCS = rc.part_functions(score, PARTS)
