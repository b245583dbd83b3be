"""Rebuild ``corpora/bfcl/`` from BFCL's data folder, keeping what the tests and benchmarks read.

Usage::

    python corpora/trim.py PATH/TO/berkeley-function-call-leaderboard/bfcl_eval/data [DEST]

``DEST`` defaults to ``corpora/bfcl/`` beside this script. The rules, in ``corpora/bfcl/README.md``:

* the categories with ground truth (``ANSWERED``) are copied unchanged, with their
  ``possible_answer/`` file: their questions, definitions and answers are all read;
* of the categories without ground truth (``DEFINITIONS_ONLY``) only the definitions are read
  (every distinct one, de-duplicated by name and parameters in sorted file order, as the readers
  do), so only the lines that bring a definition not seen on an earlier line are kept, verbatim;
* nothing else is copied; ``SHA256SUMS`` is written for the files produced.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

#: Categories whose questions and ground truth are read: copied unchanged.
ANSWERED = (
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_simple",
    "multiple",
    "parallel",
    "parallel_multiple",
    "simple_java",
    "simple_javascript",
    "simple_python",
)
#: Categories of which only the function definitions are read: trimmed to the new ones.
DEFINITIONS_ONLY = ("irrelevance", "live_irrelevance", "live_relevance")


def file_name(category: str) -> str:
    """BFCL's file name for a category."""
    return f"BFCL_v4_{category}.json"


def new_definitions(line: str, seen: set[tuple[str, str]]) -> bool:
    """Record the definitions of one question line; whether any was not seen before."""
    found = False
    for function in json.loads(line)["function"]:
        key = (function["name"], json.dumps(function["parameters"], sort_keys=True))
        if key not in seen:
            seen.add(key)
            found = True
    return found


def trim(source: Path, dest: Path) -> list[Path]:
    """Write the trimmed corpus into ``dest``; return the files written, relative to it."""
    (dest / "possible_answer").mkdir(parents=True, exist_ok=True)
    written, seen = [], set()
    for category in sorted((*ANSWERED, *DEFINITIONS_ONLY), key=file_name):
        name = file_name(category)
        text = (source / name).read_text(encoding="utf-8")
        if category in ANSWERED:
            for line in text.splitlines():
                new_definitions(line, seen)
            shutil.copyfile(source / name, dest / name)
            shutil.copyfile(source / "possible_answer" / name, dest / "possible_answer" / name)
            written += [Path(name), Path("possible_answer", name)]
        else:
            kept = [line for line in text.splitlines() if new_definitions(line, seen)]
            (dest / name).write_text("\n".join(kept) + "\n", encoding="utf-8")
            written.append(Path(name))
    return sorted(written)


def write_sums(dest: Path, files: list[Path]) -> None:
    """Write ``SHA256SUMS`` in ``sha256sum`` format (check with ``sha256sum -c`` in ``dest``)."""
    lines = [f"{hashlib.sha256((dest / f).read_bytes()).hexdigest()}  ./{f}\n" for f in files]
    (dest / "SHA256SUMS").write_text("".join(lines), encoding="utf-8")


def main(argv: list[str]) -> None:
    """Trim the BFCL data folder named on the command line."""
    if len(argv) not in (1, 2):
        raise SystemExit(__doc__)
    dest = Path(argv[1]) if len(argv) == 2 else Path(__file__).resolve().parent / "bfcl"
    files = trim(Path(argv[0]), dest)
    write_sums(dest, files)
    print(f"wrote {len(files)} files and SHA256SUMS to {dest}")


if __name__ == "__main__":
    main(sys.argv[1:])
