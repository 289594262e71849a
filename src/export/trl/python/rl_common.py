"""Shared pieces of the RL Studio reward files (standard library only).

Reads a completion the way RL Studio's environments do: the assistant turns, the tool
messages that answer each turn, the Qwen <tool_call> blocks (well formed or not), and the
per-turn `tool_errors` count. Regexes spell out JavaScript's \\s and ASCII \\d / \\b so the
results match the TypeScript originals bit for bit. Exercised by tests/unit/export/export-trl-rewards.test.ts.
"""
import json
import re

# JavaScript's \s (Unicode-aware whitespace), as a character class body.
JS_WS = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
WS = f"[{JS_WS}]"
_WS_CHARS = "\t\n\x0b\x0c\r \xa0\u1680" + "".join(chr(c) for c in range(0x2000, 0x200B)) + "\u2028\u2029\u202f\u205f\u3000\ufeff"

TOOL_CALL_OPEN = "<tool_call>"
TOOL_CALL_CLOSE = "</tool_call>"
_TOOL_CALL_RE = re.compile(rf"<tool_call>{WS}*(\{{[\s\S]*?\}}){WS}*</tool_call>")
_STRIP_CALLS_RE = re.compile(r"<tool_call>[\s\S]*?(</tool_call>|\Z)")


def js_trim(s):
    """String.prototype.trim()."""
    return s.strip(_WS_CHARS)


def js_trim_end(s):
    """s.replace(/\\s+$/, '')."""
    return s.rstrip(_WS_CHARS)


def _no_constants(name):
    raise ValueError(f"{name} is not JSON")


def js_json(text):
    """JSON.parse: no NaN / Infinity."""
    return json.loads(text, parse_constant=_no_constants)


def content_text(message):
    """A message's text (content may be a string or a list of text parts)."""
    c = message.get("content") if isinstance(message, dict) else message
    if c is None:
        return ""
    if isinstance(c, list):
        return "".join(p.get("text", "") for p in c if isinstance(p, dict))
    return str(c)


def as_messages(completion):
    """TRL passes a list of messages (conversational) or a string (standard format)."""
    if isinstance(completion, str):
        return [{"role": "assistant", "content": completion}]
    return list(completion)


def parse_tool_calls(text):
    """Every <tool_call>{json}</tool_call>: (calls, errors), as qwen-tools.ts parseToolCalls."""
    calls, errors = [], []
    for m in _TOOL_CALL_RE.finditer(text):
        try:
            obj = js_json(m.group(1))
            args = obj.get("arguments") if isinstance(obj, dict) else None
            if args is None:
                args = {}
            if isinstance(args, str):
                args = js_json(args)
            if not isinstance(obj.get("name"), str) or not isinstance(args, dict):
                errors.append("bad shape")
                continue
            calls.append({"name": obj["name"], "arguments": args})
        except (ValueError, AttributeError):
            errors.append("bad json")
    return calls, errors


def bad_blocks(text):
    """Blocks the agent loop could not run (unclosed, not JSON, wrong shape), as tool-parse.ts."""
    bad, at = 0, 0
    while True:
        start = text.find(TOOL_CALL_OPEN, at)
        if start < 0:
            return bad
        body = start + len(TOOL_CALL_OPEN)
        close = text.find(TOOL_CALL_CLOSE, body)
        nxt = text.find(TOOL_CALL_OPEN, body)
        if close < 0 or (0 <= nxt < close):
            bad += 1
            at = nxt if nxt >= 0 else len(text)
            continue
        end = close + len(TOOL_CALL_CLOSE)
        calls, _ = parse_tool_calls(text[start:end])
        if len(calls) != 1:
            bad += 1
        at = end


def strip_tool_calls(text):
    """The text without <tool_call> blocks (closed or not), trimmed."""
    return js_trim(_STRIP_CALLS_RE.sub("", text))


def tool_failed(message):
    """A tool message reporting a failure: RL Studio's "Error: ..." text or TRL's {'error': ...}.

    Messages exported from an RL Studio run carry `ok` (the sandbox's verdict) and it wins.
    """
    if "ok" in message:
        return not message["ok"]
    text = content_text(message)
    return text.startswith("Error: ") or text.startswith("{'error'")


def tool_invalid(message):
    """A call the registry rejected (unknown tool, arguments not matching the schema)."""
    text = content_text(message)
    return text.startswith("Error: invalid call") or text.startswith("{'error'")


def turns(completion):
    """[(assistant message, [tool messages answering it])] in order."""
    out = []
    for m in as_messages(completion):
        role = m.get("role")
        if role == "assistant":
            out.append((m, []))
        elif role == "tool" and out:
            out[-1][1].append(m)
    return out


def turn_tool_errors(assistant, results):
    """Malformed blocks plus invalid calls of one turn (transcript.ts countToolErrors)."""
    text = content_text(assistant)
    _, errors = parse_tool_calls(text)
    malformed = max(bad_blocks(text), len(errors)) if results else len(errors)
    return malformed + sum(1 for r in results if tool_invalid(r))


def tool_errors_per_turn(completion):
    return [turn_tool_errors(a, rs) for a, rs in turns(completion)]


def tool_messages(completion):
    return [m for m in as_messages(completion) if m.get("role") == "tool"]


def last_assistant_text(completion):
    for m in reversed(as_messages(completion)):
        if m.get("role") == "assistant":
            return content_text(m)
    return ""


def weighted(parts, weights):
    """sum(weights[p] * parts[p]) in the parts' order (reward.ts weigh)."""
    total = 0
    for name, v in parts.items():
        total += weights.get(name, 0) * v
    return total


def episode_return(final_parts, turn_errors, weights):
    """The final weighted total plus each turn's weighted tool_errors (reward.ts episodeReturn)."""
    ret = weighted(final_parts, weights)
    for n in turn_errors:
        ret += weighted({"tool_errors": n}, weights)
    return ret


def column(kwargs, name, n):
    """A dataset column TRL passed as a keyword argument, checked for length."""
    if name not in kwargs:
        raise KeyError(f"the dataset has no '{name}' column; export it with `rl-studio export-trl`")
    values = list(kwargs[name])
    if len(values) != n:
        raise ValueError(f"column '{name}' has {len(values)} values for {n} completions")
    return values


def row_of(kwargs, i, n):
    """Example i's dataset columns out of TRL's keyword arguments (lists of n values)."""
    return {k: v[i] for k, v in kwargs.items() if isinstance(v, (list, tuple)) and len(v) == n}


def part_functions(score, names, prepare=None):
    """One TRL reward function per reward part, named after it (TRL logs rewards/{name}/mean).

    Use them with GRPOConfig(reward_weights=[WEIGHTS[n] for n in names]) to get the weighted
    sum RL Studio trains on. Each returns None (NaN for TRL) where the part does not apply.
    """

    def make(name):
        def reward(prompts=None, completions=None, **kwargs):
            n = len(completions)
            if prepare:
                prepare(completions, [row_of(kwargs, i, n) for i in range(n)])
            return [score(c, **row_of(kwargs, i, n))["parts"].get(name) for i, c in enumerate(completions)]

        reward.__name__ = name
        reward.__qualname__ = name
        return reward

    return [make(n) for n in names]


def configurer(module_name, config, weights):
    """The configure(**overrides) of a reward module: CONFIG keys and a `weights` dict."""

    def configure(**overrides):
        new_weights = overrides.pop("weights", None)
        unknown = set(overrides) - set(config)
        if unknown:
            raise KeyError(f"{module_name}: unknown config keys {sorted(unknown)}; known: {sorted(config)} and weights")
        config.update(overrides)
        if new_weights:
            weights.update(new_weights)

    configure.__doc__ = f"Override {module_name}'s CONFIG / WEIGHTS entries (train_grpo.py passes reward_config.json)."
    return configure
