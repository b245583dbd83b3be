"""Search quality and speed on BFCL: recall@5 over every distinct definition, and latency.

Every distinct BFCL function definition (by name and parameters: 3,205 of them, 1,853 names)
becomes one tool in one registry. Each question of a category is a query (its user messages,
joined); it is a hit when the ground-truth function is among the first five function names the
search returns. BFCL reuses a name with different parameter lists, so several results can be
the same function: the first five *names* are counted (one registry offers one tool per name),
and the stricter count of the first five *tools* is shown too.

The search's weights were fitted (``fit_search.py``) on the development categories
(the single-intent ``simple_python``, ``live_simple``, ``simple_java``, ``simple_javascript``,
``parallel`` and ``live_parallel``);
``multiple`` and ``live_multiple`` are the measured ones.

Usage: ``python bench/bench_search.py`` (reads the corpus in ``corpora/bfcl/``). With
``--embedding minilm`` it measures the optional MiniLM embedding instead (the ``minilm``
extra): recall on every category and latency at 10,000 tools, each beside the default's,
measured in the same process (MiniLM's tool vectors come from ``_embedding_cache``; its index
build is timed on ``BUILD_SAMPLE`` fresh texts and scaled).
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import CORPORA, Row, render_rows

BFCL = CORPORA / "bfcl"
MEASURED = ("multiple", "live_multiple")
TARGETS = {"multiple": 0.95, "live_multiple": 0.90}
#: The single-intent categories (one function asked for, as in the measured ones).
DEVELOPMENT = (
    "simple_python",
    "live_simple",
    "simple_java",
    "simple_javascript",
    "parallel",
    "live_parallel",
)
#: Shown for information: questions asking for several different functions at once (their
#: step splitting was checked on these, see the README).
OTHER = ("parallel_multiple", "live_parallel_multiple")
LATENCY_TOOLS = 10_000
#: Tool texts MiniLM embeds afresh to time its index build (scaled to ``LATENCY_TOOLS``).
BUILD_SAMPLE = 500


def _corpus() -> Path:
    if not BFCL.is_dir():
        raise SystemExit(f"BFCL corpus not found at {BFCL}: corpora/ is part of the repository")
    return BFCL


def distinct_definitions() -> list[dict[str, Any]]:
    """Every distinct (name, parameters) function definition of the BFCL question files."""
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for path in sorted(_corpus().glob("BFCL_v4_*.json")):
        for line in path.read_text(encoding="utf-8").splitlines():
            for fn in json.loads(line).get("function", []):
                key = (fn["name"], json.dumps(fn["parameters"], sort_keys=True))
                seen.setdefault(key, fn)
    return list(seen.values())


def questions(category: str) -> list[tuple[str, str]]:
    """(query text, ground-truth function name) for each question of a category."""
    truth = {}
    answers = _corpus() / "possible_answer" / f"BFCL_v4_{category}.json"
    for line in answers.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        truth[item["id"]] = next(iter(item["ground_truth"][0]))
    out = []
    for line in (_corpus() / f"BFCL_v4_{category}.json").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        text = " ".join(
            m["content"] for turn in item["question"] for m in turn if m["role"] == "user"
        )
        out.append((text, truth[item["id"]]))
    return out


def build_tools(
    definitions: list[dict[str, Any]], copies: int = 1
) -> tuple[list[Any], dict[str, str]]:
    """Tools for the definitions (unique names, BFCL types normalised), and tool -> BFCL name."""
    from forge.tools import from_record
    from forge.tools.importers.normalize import normalize_schema

    tools, original, used = [], {}, set()
    for copy in range(copies):
        for fn in definitions:
            base = re.sub(r"[^A-Za-z0-9_-]", "_", fn["name"])[:56]
            base = base if re.match(r"[A-Za-z_]", base) else "_" + base
            name, n = base, 1
            while name in used:
                n += 1
                name = f"{base}__{n}"
            used.add(name)
            original[name] = fn["name"]
            schema, _notes = normalize_schema(fn["parameters"], fn["name"])
            record = {"name": name, "description": fn.get("description", "") or name,
                      "parameters": schema, "handler": lambda args: args}  # fmt: skip
            tools.append(from_record(record))
        del copy
    return tools, original


def recall(
    registry: Any, original: dict[str, str], category: str, embedding: Any = None
) -> tuple[float, float]:
    """(recall@5 over function names, recall@5 over tools) for one category."""
    names_hits = tools_hits = 0
    items = questions(category)
    for text, truth in items:
        ranked = [original[t.name] for t in registry.search(text, limit=50, embedding=embedding)]
        tools_hits += truth in ranked[:5]
        names_hits += truth in list(dict.fromkeys(ranked))[:5]
    return names_hits / len(items), tools_hits / len(items)


def needed(category: str) -> list[set[str]]:
    """Every distinct ground-truth function name of each question of a category."""
    answers = _corpus() / "possible_answer" / f"BFCL_v4_{category}.json"
    return [{next(iter(call)) for call in json.loads(line)["ground_truth"]}
            for line in answers.read_text(encoding="utf-8").splitlines()]  # fmt: skip


def all_in_top_10(
    registry: Any, original: dict[str, str], category: str, embedding: Any = None
) -> float:
    """Share of questions with every function they need among the first ten names found."""
    hits = 0
    for (text, _), wanted in zip(questions(category), needed(category), strict=True):
        ranked = [original[t.name] for t in registry.search(text, limit=50, embedding=embedding)]
        hits += wanted <= set(list(dict.fromkeys(ranked))[:10])
    return hits / len(questions(category))


def plain_bm25(definitions: list[dict[str, Any]]) -> dict[str, float]:
    """Reference: plain bm25s (defaults) over each whole definition, first five names.

    A definition's text is its name, description and JSON parameter schema, split into
    lowercase ``\\w+`` words (no stemming, stop words kept, identifiers not split); the query is
    the user messages split the same way. Of the readings of "plain BM25 over name +
    description" tried, this one comes closest to the figures quoted when the targets were
    set (0.915 and 0.819): 0.915 and 0.818. Over the name and description alone it is 0.815
    and 0.634.
    """
    import bm25s
    import numpy as np

    words = re.compile(r"\w+")
    texts = [f"{fn['name']} {fn.get('description', '')} {json.dumps(fn['parameters'])}"
             for fn in definitions]  # fmt: skip
    index = bm25s.BM25()
    index.index([words.findall(text.lower()) or ["_"] for text in texts], show_progress=False)
    out = {}
    for category in MEASURED:
        hits, items = 0, questions(category)
        for text, truth in items:
            scores = index.get_scores(words.findall(text.lower()) or ["_"])
            ranked = [definitions[i]["name"] for i in np.argsort(-scores, kind="stable")[:50]]
            hits += truth in list(dict.fromkeys(ranked))[:5]
        out[category] = hits / len(items)
    return out


class Latency(NamedTuple):
    """Search latency at `LATENCY_TOOLS` tools (medians per query)."""

    ours_ms: float
    bm25s_ms: float
    build_s: float
    tools: int
    chinese_ms: float  # the Chinese development set's requests, read through English glosses
    dictionary_s: float  # the first Chinese request: the dictionary is read


def chinese_requests() -> list[str]:
    """The requests of the Chinese development set whose tools are described in English."""
    from _retrieval import load_set

    return [question.query for question in load_set("bfcl-zhtw").questions]


_FIRST_CHINESE = """
import time
from forge.tools import ToolRegistry, from_record
registry = ToolRegistry([from_record({"name": "weather", "description": "The weather of a city",
                                      "handler": lambda args: args})])
registry.search("weather in Paris")
started = time.perf_counter()
registry.search("\u5df4\u9ece\u7684\u5929\u6c14")
print(time.perf_counter() - started)
"""


def first_chinese_request_s() -> float:
    """Seconds of a fresh process's first Chinese request (the dictionary is read then)."""
    done = subprocess.run([sys.executable, "-c", _FIRST_CHINESE], capture_output=True,
                          text=True, check=True, timeout=120)  # fmt: skip
    return float(done.stdout.split()[-1])


def latency(definitions: list[dict[str, Any]]) -> Latency:
    """Our search and bm25s's at 10,000 tools, English and Chinese requests."""
    from forge.tools.search import tokenize

    registry, texts = latency_registry(definitions)
    started = time.perf_counter()
    registry.search("warm up the index")
    build_s = time.perf_counter() - started
    ours = query_ms(registry, texts)
    chinese = chinese_requests()
    registry.search(chinese[0])
    chinese_ms = statistics.median(query_ms(registry, chinese))
    dictionary_s = first_chinese_request_s()
    import bm25s

    from forge.tools.search import K1, B, _document

    index = bm25s.BM25(k1=K1, b=B)  # the weighted-field documents, as a bm25s index
    index.index([_document(t) or ["_"] for t in registry], show_progress=False)
    raw = []
    for text in texts:
        terms = tokenize(text) or ["_"]
        t0 = time.perf_counter()
        index.retrieve([terms], k=10, show_progress=False)
        raw.append(time.perf_counter() - t0)
    return Latency(statistics.median(ours), statistics.median(raw) * 1e3, build_s, len(registry),
                   chinese_ms, dictionary_s)  # fmt: skip


def latency_registry(definitions: list[dict[str, Any]]) -> tuple[Any, list[str]]:
    """A registry of ``LATENCY_TOOLS`` tools (copies of the definitions) and the questions."""
    from forge.tools import ToolRegistry

    copies = -(-LATENCY_TOOLS // len(definitions))
    tools, _ = build_tools(definitions, copies)
    texts = [text for category in MEASURED for text, _ in questions(category)]
    return ToolRegistry(tools[:LATENCY_TOOLS]), texts


def query_ms(registry: Any, texts: list[str], embedding: Any = None) -> list[float]:
    """Milliseconds of ``registry.search(text, limit=10)`` for each text (index built)."""
    out = []
    for text in texts:
        t0 = time.perf_counter()
        registry.search(text, limit=10, embedding=embedding)
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def run() -> Iterator[str]:
    """Run the search benchmark, yielding the rendered Markdown tables."""
    from forge.tools import ToolRegistry

    definitions = distinct_definitions()
    tools, original = build_tools(definitions)
    registry = ToolRegistry(tools)
    plain = plain_bm25(definitions)
    rows = []
    for category in (*MEASURED, *DEVELOPMENT, *OTHER):
        by_name, by_tool = recall(registry, original, category)
        target = TARGETS.get(category)
        label = f"**ours** `{category}` ({len(questions(category))} questions)"
        if category in DEVELOPMENT:
            label += " (info, used for tuning)"
        elif category in OTHER:
            label += " (info, first ground truth)"
        rows.append(Row(label, by_name * 100, "%", None, "", f"≥ {target:.0%}" if target else "",
                        by_name >= target if target else None))  # fmt: skip
        if category in OTHER:
            share = all_in_top_10(registry, original, category)
            rows.append(Row("... all needed functions in the first ten names (info)",
                            share * 100, "%"))  # fmt: skip
        if category in MEASURED:
            rows.append(Row("... first five tools instead of names (info)", by_tool * 100, "%"))
            rows.append(Row(f"plain BM25, whole definition, `{category}` (info)",
                            plain[category] * 100, "%"))  # fmt: skip
    names = len(set(original.values()))
    yield render_rows(
        f"Search recall@5 over {len(definitions):,} BFCL definitions ({names:,} names)", rows
    )
    took = latency(definitions)
    raw_ms, ours_ms = took.bm25s_ms, took.ours_ms
    yield render_rows(
        f"Search latency with {took.tools:,} tools registered (median per query)",
        [
            Row("bm25s `retrieve(k=10)` over the same documents", raw_ms, "ms", 1.0, "bm25s"),
            Row("**ours** `registry.search(q, limit=10)`", ours_ms, "ms", ours_ms / raw_ms, "bm25s",
                "< 5 ms", ours_ms < 5),
            Row("**ours**, the Chinese requests of `bfcl-zhtw` (glossed; info)", took.chinese_ms,
                "ms", took.chinese_ms / raw_ms, "bm25s"),
            Row("first Chinese request: the dictionary is read (info)", took.dictionary_s * 1e3,
                "ms"),
            Row("index build on first search (info)", took.build_s * 1e3, "ms"),
        ],
    )  # fmt: skip


def run_embedding() -> Iterator[str]:
    """The MiniLM embedding against the default: recall per category, latency, build time."""
    from _embedding_cache import cached
    from forge.tools import ToolRegistry
    from forge.tools.search import MINILM, _semantic_text

    choice = cached(queries=False)
    definitions = distinct_definitions()
    tools, original = build_tools(definitions)
    registry = ToolRegistry(tools)
    rows = []
    for category in (*MEASURED, *DEVELOPMENT, *OTHER):
        default = recall(registry, original, category)[0]
        minilm = recall(registry, original, category, choice)[0]
        target = TARGETS.get(category)
        note = " (info, used for tuning)" if category in DEVELOPMENT else ""
        rows.append(Row(f"`{category}`: default{note}", default * 100, "%"))
        rows.append(Row(f"`{category}`: **ours+minilm**{note}", minilm * 100, "%", None, "",
                        f"≥ {target:.0%}" if target else "",
                        minilm >= target if target else None))  # fmt: skip
        if category in OTHER:
            for label, chosen in (("default", None), ("ours+minilm", choice)):
                share = all_in_top_10(registry, original, category, chosen)
                rows.append(Row(f"... {label}: all needed in the first ten names (info)",
                                share * 100, "%"))  # fmt: skip
    yield render_rows(f"Search recall@5 with MiniLM over {len(definitions):,} BFCL definitions",
                      rows)  # fmt: skip
    big, texts = latency_registry(definitions)
    big.search("warm up the index")
    big.search("warm up the index", embedding=choice)
    default_ms, minilm_ms = [], []
    for text in texts:  # interleaved, so both see the same load
        default_ms += query_ms(big, [text])
        minilm_ms += query_ms(big, [text], choice)
    sample = [_semantic_text(t) for t in list(big)[:BUILD_SAMPLE]]
    started = time.perf_counter()
    MINILM.embed(sample)
    build_s = (time.perf_counter() - started) * LATENCY_TOOLS / len(sample)
    median = statistics.median
    yield render_rows(
        f"Search latency with {len(big):,} tools, default against MiniLM (median per query)",
        [
            Row("default `registry.search(q, limit=10)`", median(default_ms), "ms", 1.0,
                "default", "< 5 ms", median(default_ms) < 5),
            Row("`registry.search(q, limit=10, embedding=\"minilm\")`", median(minilm_ms), "ms",
                median(minilm_ms) / median(default_ms), "default"),
            Row("... p95 (info)", sorted(minilm_ms)[int(0.95 * len(minilm_ms))], "ms"),
            Row(f"MiniLM index build, {BUILD_SAMPLE} tool texts timed, scaled (info)",
                build_s * 1e3, "ms"),
        ],
    )  # fmt: skip


def main() -> None:
    """Print the search tables (``--embedding minilm``: MiniLM's, see the docstring)."""
    tables = run_embedding() if sys.argv[1:] == ["--embedding", "minilm"] else run()
    if sys.argv[1:] not in ([], ["--embedding", "minilm"]):
        raise SystemExit("usage: bench_search.py [--embedding minilm]")
    for table in tables:
        print(table, end="\n\n", flush=True)


if __name__ == "__main__":
    main()
