"""Grading server for reward_code_exec.py: runs each job in a forked child process.

Started as `python3 -I -S code_runner.py` by reward_code_exec.py (one per grading thread). It
reads jobs as JSON lines on stdin, {"program", "tests", "timeout_s", "max_output_bytes",
"max_memory_bytes"}, and answers each with one line {"solution": ok, "passed": [bool per
assert]}. Each job runs in a fresh fork (a clean namespace, its own memory cap), as in RL
Studio's Pyodide sandbox: the program, then each assert in its namespace; a timeout or an
output flood stops the run (the assert under way and the rest fail). Forking a warm process
costs a few milliseconds, where starting python3 per job costs a hundred or more.
Exercised through reward_code_exec.py by tests/unit/export/export-trl-rewards.test.ts.
"""
import io
import json
import os
import select
import signal
import sys
import time

try:
    import resource  # imported once here, not in every child
except ImportError:  # not on Linux: the timeout still bounds each run
    resource = None


class _Stop(BaseException):
    """The run's budget (time or output) is spent."""


class _CappedSink(io.TextIOBase):
    """Discards the program's output, raising _Stop once it passes the byte budget."""

    def __init__(self, budget):
        self.budget = budget

    def writable(self):
        return True

    def write(self, s):
        self.budget -= len(s.encode("utf-8", "replace"))
        if self.budget < 0:
            raise _Stop("output limit")
        return len(s)


def _child(job, events):
    """Runs one job; writes one event line per step to the `events` file descriptor."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    sys.stdout = sys.stderr = _CappedSink(int(job["max_output_bytes"]))
    sys.stdin = io.StringIO("")
    if resource is not None:
        cap = int(job["max_memory_bytes"])
        try:
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        except (ValueError, OSError):
            pass  # not allowed here: the timeout still bounds the run

    def emit(obj):
        os.write(events, (json.dumps(obj) + "\n").encode())

    def on_alarm(_signum, _frame):
        raise _Stop("timeout")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, float(job["timeout_s"]))
    ns = {"__name__": "__main__", "__builtins__": __builtins__}
    try:
        exec(compile(job["program"], "<code>", "exec", dont_inherit=True), ns)
        ok = True
    except SystemExit as e:
        ok = e.code is None or e.code == 0
    except BaseException:
        ok = False
    emit({"solution": ok})
    if not ok:
        return
    for i, test in enumerate(job["tests"]):
        try:
            exec(compile(test, "<test>", "exec", dont_inherit=True), ns)
            emit({"assert": i, "passed": True})
        except _Stop:
            emit({"assert": i, "passed": False})
            return
        except BaseException:
            emit({"assert": i, "passed": False})


def run_job(job):
    """Forks, runs the job in the child, collects its events; kills it past the backstop."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            _child(job, w)
        except BaseException:
            pass
        os._exit(0)
    os.close(w)
    data, deadline = b"", time.monotonic() + float(job["timeout_s"]) + 5
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([r], [], [], left)[0]:
            os.kill(pid, signal.SIGKILL)
            break
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    events = [json.loads(line) for line in data.decode().splitlines() if line.strip()]
    solution = bool(events and events[0].get("solution"))
    passed = [False] * len(job["tests"])
    for e in events[1:]:
        passed[e["assert"]] = bool(e["passed"])
    return {"solution": solution, "passed": passed}


def main():
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(json.dumps(run_job(json.loads(line))) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
