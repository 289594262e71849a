"""RL Studio's `code_exec` (MBPP) reward as TRL reward functions (standard library only).

Ports src/envs/code/extract.ts and env.ts: the submitted code is the last ```python block,
else the last bare ``` block, else the whole message; it runs with the task's test_setup_code,
then each assert, in a forked Python process (code_runner.py) under a timeout. Parts:
correctness (all asserts pass, or the share with scoring "fraction"), pass_rate, format,
tool_use, and the per-turn tool_errors. Dataset columns: `tests`, `test_setup_code`.
Checked against the TypeScript environment by tests/unit/export/export-trl-rewards.test.ts.
"""
import json
import os
import re
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import rl_common as rc

CONFIG = {
    "scoring": "all_pass",  # all_pass | fraction
    "timeout_s": 10.0,  # budget of one grading run (solution + every assert)
    "max_output_bytes": 65536,  # the program's stdout + stderr cap
    "max_memory_bytes": 1 << 30,  # address-space cap of the grading process
    "workers": os.cpu_count() or 1,  # grading processes run at once
}
WEIGHTS = {"correctness": 1, "pass_rate": 0, "format": 0.1, "tool_use": 0, "tool_errors": -0.1}
PARTS = ["correctness", "pass_rate", "format", "tool_use", "tool_errors"]
RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "code_runner.py")

_BLOCK_RE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n([\s\S]*?)```")
_PY_RE = re.compile(r"python3?|py", re.I | re.A)
_runs = {}


configure = rc.configurer("reward_code_exec", CONFIG, WEIGHTS)


def extract_code(message):
    """(code, source): source is python, fence or raw."""
    text = rc.strip_tool_calls(message)
    blocks = list(_BLOCK_RE.finditer(text))
    python = [b for b in blocks if _PY_RE.fullmatch(b.group(1))]
    if python:
        return rc.js_trim_end(python[-1].group(2)) + "\n", "python"
    bare = [b for b in blocks if b.group(1) == ""]
    if bare:
        return rc.js_trim_end(bare[-1].group(2)) + "\n", "fence"
    return text, "raw"


def _program(code, setup):
    return f"{code}\n{setup}\n" if setup else code


class _Server:
    """One code_runner.py process; jobs go in and results come out as JSON lines."""

    def __init__(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", RUNNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
        )

    def run(self, job):
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"code_runner.py exited with {self.proc.wait()}")
        return json.loads(line)


_local = threading.local()
_pool = []  # the grading threads, made once (each keeps its code_runner.py process)


def _server():
    server = getattr(_local, "server", None)
    if server is None or server.proc.poll() is not None:
        server = _local.server = _Server()
    return server


def run_tests(program, tests):
    """(passed, total) of the asserts, cached per (program, tests)."""
    key = (program, tuple(tests))
    if key in _runs:
        return _runs[key]
    job = {k: CONFIG[k] for k in ("timeout_s", "max_output_bytes", "max_memory_bytes")}
    job.update(program=program, tests=list(tests))
    result = _server().run(job)
    if len(_runs) > 4096:
        _runs.clear()
    _runs[key] = (sum(1 for p in result["passed"] if p), len(tests))
    return _runs[key]


def prepare(completions, rows):
    """Runs every distinct submission of a batch in parallel processes before scoring."""
    jobs = set()
    for c, row in zip(completions, rows):
        code, _ = extract_code(rc.last_assistant_text(c))
        if rc.js_trim(code):
            jobs.add((_program(code, row.get("test_setup_code") or ""), tuple(row["tests"])))
    todo = [j for j in jobs if j not in _runs]
    if not _pool:
        _pool.append(ThreadPoolExecutor(max_workers=max(1, int(CONFIG["workers"]))))
    list(_pool[0].map(lambda j: run_tests(*j), todo))


def grade(final_text, tests, test_setup_code, tool_calls_ok):
    """The final parts of one answer (CodeExecEnv.grade)."""
    code, source = extract_code(final_text)
    fmt = 1 if source == "python" else 0
    tool_use = 1 if tool_calls_ok > 0 else 0
    if not rc.js_trim(code):
        return {"correctness": 0, "pass_rate": 0, "format": fmt, "tool_use": tool_use}
    passed, total = run_tests(_program(code, test_setup_code or ""), tests)
    pass_rate = passed / total if total else 0
    correct = (1 if passed == total else 0) if CONFIG["scoring"] == "all_pass" else pass_rate
    return {"correctness": correct, "pass_rate": pass_rate, "format": fmt, "tool_use": tool_use}


def score(completion, tests, test_setup_code="", **_):
    """Every part of one episode and its weighted return (what RL Studio trains on)."""
    ok = sum(1 for m in rc.tool_messages(completion) if not rc.tool_failed(m))
    final = grade(rc.last_assistant_text(completion), list(tests), test_setup_code, ok)
    per_turn = rc.tool_errors_per_turn(completion)
    parts = dict(final, tool_errors=sum(per_turn))
    return {"parts": parts, "total": rc.episode_return(final, per_turn, WEIGHTS)}


# One function per part, named after it; GRPOConfig.reward_weights = [WEIGHTS[p] for p in PARTS].
REWARD_FUNCS = rc.part_functions(score, PARTS, prepare)
