"""The parts of a multi-step request, and a fair merge of the rankings found for each.

A request is cut at line breaks, semicolons, numbered steps and the words that chain steps
("then", "after that", "also", "finally", ..., and their Chinese counterparts). It counts as
several requests only when at least two parts hold a search term; otherwise it is searched
whole. Sentence ends are not cuts: a question's first sentences are often its context.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

__all__ = ["MAX_PARTS", "interleave", "parts"]

#: At most this many parts are searched; later ones are joined to the last.
MAX_PARTS = 6

_CUT = re.compile(
    r"\s*[\n;\uff1b]+\s*"
    r"|(?:^|\s)(?i:step\s*)?\d{1,2}[.):]\s+"  # numbered steps
    r"|,?\s*\b(?i:(?:and\s+)?(?:then|after\s+that|afterwards?|also|additionally|in\s+addition"
    r"(?:\s+to\s+that)?|finally|lastly|next(?=\s*,)))\b,?\s*"
    # the same words in Chinese: then, after that, also, besides, finally
    "|[\uff0c,]?\\s*(?:\u7136\u540e|\u63a5\u7740|\u968f\u540e|\u53e6\u5916|\u6b64\u5916"
    "|\u6700\u540e)[\uff0c,]?"
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
