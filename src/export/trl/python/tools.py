"""The tools of RL Studio's environments as Python callables for TRL's GRPOTrainer(tools=...).

`search(query)`: BM25 over the exported corpus.jsonl, ported from src/tools/search/bm25.ts and
corpus.ts (same tokenizer, stop words, stemmer, k1 = 1.2, b = 0.75, ranking and `[Title]
snippet` text; snippets are cut at 500 code points where ours cuts at 500 UTF-16 units).
`python(code)`: runs code in a fresh python3 process under a timeout and returns stdout then
stderr; unlike our sandbox, variables do not persist between the calls of an episode (TRL's
tool callables are not told which episode calls them). Failures come back as text starting
with "Error: " (never raised), so the reward files count a failed call as they count ours.
Each tool's description is the one our environment shows the model. Standard library only; search ranking is compared
with ours by tests/unit/export/export-trl-bundle.test.ts.
"""
import json
import math
import os
import re
import subprocess
import sys
import unicodedata

TIMEOUT_S = 10.0  # per call (rollout.tool_timeout_ms)
MAX_CHARS = 4000  # characters the model reads per call; the middle is cut
K = int(os.environ.get("RL_STUDIO_SEARCH_K", "3"))  # search results per call (reward_config.json tools.search_k)
MAX_SNIPPET = 500

_STOP = set(
    (
        "a an and are as at be by for from has have he her his i in is it its of on or she that the their them they this to was "
        "were what when where which who whom why how with did do does done into than then there these those you your we our "
        "not no but if so can could would should will shall may might been being had also any all some such"
    ).split(" ")
)
_WORD_RE = re.compile(r"[^\W_]+")


def stem(w):
    if len(w) > 5 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith("ing"):
        return w[:-3]
    if len(w) > 4 and w.endswith("ed"):
        return w[:-2]
    if len(w) > 3 and w.endswith("es") and re.search(r"(s|x|z|ch|sh)es$", w):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def tokenize(text):
    folded = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not 0x300 <= ord(ch) <= 0x36F).lower()
    return [stem(w) for w in _WORD_RE.findall(folded) if w not in _STOP]


class Bm25:
    def __init__(self, docs, k1=1.2, b=0.75):
        self.k1, self.b, self.postings, self.lengths = k1, b, {}, []
        for d, text in enumerate(docs):
            toks = tokenize(text)
            counts = {}
            for t in toks:
                counts[t] = counts.get(t, 0) + 1
            for t, n in counts.items():
                self.postings.setdefault(t, []).append((d, n))
            self.lengths.append(len(toks))
        self.size = len(docs)
        self.avg = sum(self.lengths) / len(docs) if docs else 1

    def search(self, query, k):
        scores = {}
        for term in dict.fromkeys(tokenize(query)):
            posting = self.postings.get(term)
            if not posting:
                continue
            idf = math.log(1 + (self.size - len(posting) + 0.5) / (len(posting) + 0.5))
            for d, tf in posting:
                norm = tf + self.k1 * (1 - self.b + (self.b * self.lengths[d]) / self.avg)
                scores[d] = scores.get(d, 0) + (idf * tf * (self.k1 + 1)) / norm
        return sorted(scores.items(), key=lambda x: (-x[1], x[0]))[:k]


_corpus = {}


def load_corpus(path):
    docs = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            if line.strip():
                o = json.loads(line)
                docs.append({"id": str(o.get("id", i)), "title": str(o.get("title", "")), "text": o["text"]})
    _corpus["docs"] = docs
    _corpus["index"] = Bm25([f"{d['title']} {d['text']}" for d in docs])


def cap(text):
    if len(text) <= MAX_CHARS:
        return text
    marker = f"\n...[{len(text) - MAX_CHARS} characters cut]...\n"
    keep = max(0, MAX_CHARS - len(marker))
    head = (keep + 1) // 2
    return text[:head] + marker + text[len(text) - (keep - head):]


def search(query: str) -> str:
    """Search the offline corpus

    Args:
        query: What to search for
    """
    if "index" not in _corpus:
        load_corpus(os.environ.get("RL_STUDIO_CORPUS", os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus.jsonl")))
    if not isinstance(query, str) or not 1 <= len(query) <= 500:
        return "Error: invalid call to search: query must be a string of 1 to 500 characters"
    hits = _corpus["index"].search(query, K)
    if not hits:
        return "No results."
    lines = []
    for d, _ in hits:
        doc = _corpus["docs"][d]
        text = doc["text"]
        snippet = text[:MAX_SNIPPET] + "..." if len(text) > MAX_SNIPPET else text
        lines.append(f"[{doc['title']}] {snippet}")
    return cap("\n\n".join(lines))


def python(code: str) -> str:
    """Run Python code (stdout is returned); use print() to see results

    Args:
        code: Python source to run
    """
    if not isinstance(code, str) or not 1 <= len(code) <= 20000:
        return "Error: invalid call to python: code must be a string of 1 to 20000 characters"
    try:
        p = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"Error: python timed out after {int(TIMEOUT_S * 1000)} ms"
    out = "\n".join(s.rstrip("\n") for s in (p.stdout, p.stderr) if s) or "(no output)"
    return cap(out if p.returncode == 0 else f"Error: {out}")


def tools_for(tool_schemas):
    """The callables matching a row's `tools` JSON (each with our description as its docstring)."""
    by_name = {"search": search, "python": python}
    out = []
    for schema in json.loads(tool_schemas) if isinstance(tool_schemas, str) else tool_schemas:
        fn = by_name[schema["function"]["name"]]
        fn.__doc__ = _docstring(schema["function"])
        out.append(fn)
    return out


def _docstring(function):
    params = function["parameters"].get("properties", {})
    args = "".join(f"\n        {name}: {p.get('description', name)}" for name, p in params.items())
    return f"{function['description']}\n\n    Args:{args}\n    "
