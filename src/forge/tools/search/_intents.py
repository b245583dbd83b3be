"""The parts of a multi-step request, and a fair merge of the rankings found for each.

A request is cut at line breaks, semicolons, numbered steps and the words that chain steps
("then", "after that", "also", "subsequently", "finally", ..., and their German, French,
Spanish, Chinese and Japanese counterparts; in Chinese and Japanese, where words are not
spaced, "and", "again", "at the same time" only after a comma or a sentence's end, and
"second", "third" only before a comma). It counts as several requests only when at least two
parts hold a search term; otherwise it is searched whole. Sentence ends are not cuts: a
question's first sentences are often its context (cutting at them lost 2 to 3 points of
"every needed tool in the first ten" on the development sets).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

__all__ = ["MAX_PARTS", "interleave", "parts"]

#: At most this many parts are searched; later ones are joined to the last.
MAX_PARTS = 6

#: Words that chain steps in the languages the tokenizer reads as words (German, French,
#: Spanish; English above), cut only where they stand as words.
_LATIN_CUES = (
    r"dann|danach|anschlie(?:ss|\u00df)end|au(?:ss|\u00df)erdem|zuletzt|schlie(?:ss|\u00df)lich"
    r"|puis|ensuite|apr\u00e8s\s+cela|enfin|de\s+plus"
    r"|luego|despu\u00e9s|adem\u00e1s|finalmente|por\s+\u00faltimo"
)
#: Chinese and Japanese, written without spaces: words that chain steps wherever they stand
#: (then, next, after that, besides, finally, in addition, in simplified and traditional
#: characters; Japanese: then, next, finally, further), and words that do so only after a
#: comma or a sentence's end ("and", "again", "at the same time", "as well as", "after that").
_CJK_CUES = (
    "\u7136\u540e|\u63a5\u7740|\u968f\u540e|\u53e6\u5916|\u6b64\u5916|\u6700\u540e"
    "|\u5176\u6b21|\u987a\u4fbf|\u5e76\u4e14"
    "|\u7136\u5f8c|\u63a5\u8457|\u96a8\u5f8c|\u6700\u5f8c|\u9806\u4fbf|\u4e26\u4e14|\u63a5\u4e0b\u4f86|\u63a5\u4e0b\u6765"
    "|\u305d\u308c\u304b\u3089|\u305d\u306e\u5f8c|\u6b21\u306b|\u6700\u5f8c\u306b"
    "|\u3055\u3089\u306b"
)
_CJK_AFTER_COMMA = (
    "\u5e76|\u518d|\u540c\u65f6|\u4ee5\u53ca|\u4e4b\u540e|\u4ee5\u540e|\u8fd8\u8981"
    "|\u8fd8\u6709|\u8fd8|\u305d\u3057\u3066|\u307e\u305f"
    "|\u4e26|\u540c\u6642|\u4e4b\u5f8c|\u4ee5\u5f8c|\u9084\u8981|\u9084\u6709|\u9084"
)
#: "Second,", "third," ... in Chinese and Japanese: a numbered step when a comma follows.
_CJK_ORDINAL = "\u7b2c[\u4e8c\u4e09\u56db\u4e94\u516d\u4e03\u516b\u4e5d\u5341]"
_CUT = re.compile(
    r"\s*[\n;\uff1b]+\s*"
    r"|(?:^|\s)(?i:step\s*)?\d{1,2}[.):]\s+"  # numbered steps
    r"|,?\s*\b(?i:(?:and\s+)?(?:then|after\s+that|afterwards?|also|additionally|in\s+addition"
    r"(?:\s+to\s+that)?|finally|lastly|ultimately|subsequently|following\s+th(?:is|at)"
    r"|next(?=\s*,)))\b,?\s*"
    rf"|,?\s*\b(?i:(?:und\s+|et\s+|y\s+)?(?:{_LATIN_CUES}))\b,?\s*"
    f"|[\uff0c,\u3001\u3002\uff1f\uff01?!]?\\s*(?:{_CJK_CUES})[\uff0c,\u3001]?"
    f"|[\uff0c,\u3001\u3002\uff1f\uff01?!]\\s*(?:{_CJK_AFTER_COMMA})[\uff0c,\u3001]?"
    f"|[\uff0c,\u3002\uff1f\uff01?!]?\\s*{_CJK_ORDINAL}[\uff0c,\u3001]"
)


def parts(query: str, has_terms: Callable[[str], bool]) -> list[str]:
    """The parts of a request that each hold a search term; one part when it has one step."""
    pieces = [p.strip() for p in _CUT.split(query)]
    found = [p for p in pieces if p and has_terms(p)]
    if len(found) < 2:
        return [query]
    if len(found) > MAX_PARTS:
        found[MAX_PARTS - 1 :] = [" ".join(found[MAX_PARTS - 1 :])]
    return found


def interleave(
    rankings: Sequence[Sequence[int]], limit: int, skip: Sequence[int] = ()
) -> list[int]:
    """Take each ranking's best in turn (the first ranking first), without repeats or ``skip``."""
    out: list[int] = []
    if len(skip) >= limit:
        return out
    seen = set(skip)
    depth = max((len(r) for r in rankings), default=0)
    for rank in range(depth):
        for ranking in rankings:
            if rank < len(ranking) and ranking[rank] not in seen:
                seen.add(ranking[rank])
                out.append(ranking[rank])
                if len(out) + len(skip) >= limit:
                    return out
    return out
