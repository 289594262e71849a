"""RL Studio's `math` (GSM8K) reward as TRL reward functions (standard library only).

Ports src/envs/math/answer.ts and env.ts: the answer is the last \\boxed{}, else "the answer
is X", else "#### X", else the last number; parts correctness, format, tool_use and the
per-turn tool_errors. Dataset column: `answer`. Checked against the TypeScript environment on
500 rollouts by tests/unit/export/export-trl-rewards.test.ts.
"""
import re

import rl_common as rc

WS = rc.WS
CONFIG = {
    "answer_format": "boxed",  # boxed | hash | answer_is: the format asked for and rewarded
    "strict": False,  # grade only the expected format
    "tolerance": 1e-12,  # relative tolerance of the numeric comparison
}
WEIGHTS = {"correctness": 1, "format": 0.1, "tool_use": 0, "tool_errors": -0.1}
PARTS = ["correctness", "format", "tool_use", "tool_errors"]
ORDER = ["boxed", "answer_is", "hash", "last_number"]

_BOXED_RE = re.compile(rf"\\(?:boxed|fbox){WS}*\{{")
_ANSWER_IS_RE = re.compile(rf"(?<![A-Za-z0-9_])answer{WS}*(?:is|:|=){WS}*:?{WS}*([^\n]+)", re.I | re.A)
_HASH_RE = re.compile(rf"####{WS}*([^\n]+)")
_NUMBER_RE = re.compile(r"-?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|-?[0-9]+(?:\.[0-9]+)?|-?\.[0-9]+")
_TEXT_RE = re.compile(rf"\\text{WS}*\{{([^}}]*)\}}")
_NUM = r"(-?[0-9]+(?:\.[0-9]+)?)"
_FRAC_RE = re.compile(rf"-?{WS}*\\d?frac{WS}*\{{{WS}*{_NUM}{WS}*\}}{WS}*\{{{WS}*{_NUM}{WS}*\}}")
_SLASH_RE = re.compile(rf"{_NUM}{WS}*/{WS}*{_NUM}(?![0-9.])")
_NEG_FRAC_RE = re.compile(rf"-{WS}*\\d?frac")
_FIRST_NUMBER_RE = re.compile(r"-?[0-9]+(?:\.[0-9]+)?|-?\.[0-9]+")


configure = rc.configurer("reward_math", CONFIG, WEIGHTS)


def last_boxed(text):
    starts = list(_BOXED_RE.finditer(text))
    for m in reversed(starts):
        depth = 1
        for i in range(m.end(), len(text)):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    return rc.js_trim(text[m.end():i])
    return None


def _last_group(regex, text):
    found = list(regex.finditer(text))
    return rc.js_trim(found[-1].group(1)) if found else None


def extract_form(text, form):
    if form == "boxed":
        return last_boxed(text)
    if form == "answer_is":
        return _last_group(_ANSWER_IS_RE, text)
    if form == "hash":
        return _last_group(_HASH_RE, text)
    nums = _NUMBER_RE.findall(text)
    return nums[-1] if nums else None


def extract_answer(text, only=None):
    for form in [only] if only else ORDER:
        value = extract_form(text, form)
        if value is not None and value != "":
            return value, form
    return None


def parse_number(answer):
    s = _TEXT_RE.sub(r"\1", answer)
    s = re.sub(r"\\[!,;: ]", "", s)
    s = re.sub(r"\\?\$", "", s)
    s = re.sub(r"([0-9]),(?=[0-9])", r"\1", s)
    s = rc.js_trim(s)
    frac = _FRAC_RE.match(s) or _SLASH_RE.match(s)
    if frac:
        sign = -1 if _NEG_FRAC_RE.match(s) else 1
        den = float(frac.group(2))
        return None if den == 0 else (sign * float(frac.group(1))) / den
    m = _FIRST_NUMBER_RE.search(s)
    return float(m.group(0)) if m else None


def normalize_text(s):
    s = _TEXT_RE.sub(r"\1", s.lower())
    s = re.sub(rf"[{rc.JS_WS}$,]|\\\$", "", s)
    return re.sub(r"\.\Z", "", s)


def answers_match(predicted, reference, tolerance):
    a, b = parse_number(predicted), parse_number(reference)
    if a is not None and b is not None:
        return abs(a - b) <= tolerance * max(1, abs(b))
    return normalize_text(predicted) == normalize_text(reference)


def grade(final_text, answer, tool_calls_ok):
    """The final parts of one answer (MathEnv.grade)."""
    text = rc.strip_tool_calls(final_text)
    expected = CONFIG["answer_format"]
    got = extract_answer(text, expected if CONFIG["strict"] else None)
    correct = got is not None and answers_match(got[0], str(answer), CONFIG["tolerance"])
    in_format = extract_form(text, expected)
    return {
        "correctness": 1 if correct else 0,
        "format": 1 if in_format is not None and in_format != "" else 0,
        "tool_use": 1 if tool_calls_ok > 0 else 0,
    }


def score(completion, answer, **_):
    """Every part of one episode and its weighted return (what RL Studio trains on)."""
    ok = sum(1 for m in rc.tool_messages(completion) if not rc.tool_failed(m))
    final = grade(rc.last_assistant_text(completion), answer, ok)
    per_turn = rc.tool_errors_per_turn(completion)
    parts = dict(final, tool_errors=sum(per_turn))
    return {"parts": parts, "total": rc.episode_return(final, per_turn, WEIGHTS)}


# One function per part, named after it; GRPOConfig.reward_weights = [WEIGHTS[p] for p in PARTS].
REWARD_FUNCS = rc.part_functions(score, PARTS)
