"""Cutting what one result sends the model to its `OutputLimit` (the result keeps it all).

Text (the output's text or JSON, `Text` parts and text files, read as one stream) over
``max_chars`` keeps its start and its end, with a note in the middle saying how long it
was and what to do; the note counts towards the limit. Images, audio and binary files
are kept in order while they fit in ``max_bytes``; the rest are left out, named in one
note. Characters are code points, and a cut never separates a surrogate pair.
"""

from __future__ import annotations

from dataclasses import replace

from forge.tools.values.content import Audio, Content, File, Image, Text
from forge.tools.values.output_limit import OutputLimit

__all__ = ["cut_text", "limit_parts"]


def cut_note(total: int, max_chars: int) -> str:
    """The note that replaces the middle of a text cut from ``total`` to ``max_chars``."""
    return (
        f"\n[... output cut: it has {total:,} characters, over the limit of {max_chars:,} "
        "for one tool result, so only its start and end are shown. If you need the "
        "rest, call the tool again asking for less (a narrower query, a filter or a "
        "page).]\n"
    )


def cut_text(text: str, max_chars: int | None) -> tuple[str, bool]:
    """``text`` within ``max_chars`` (start, note, end) and whether it was cut."""
    if max_chars is None or len(text) <= max_chars:
        return text, False
    cut = _cut_stream([text], max_chars, 0)
    return cut[0], True


def limit_parts(parts: list[Content], limit: OutputLimit) -> tuple[list[Content], bool]:
    """``parts`` within ``limit``, and whether anything was cut or left out."""
    kept, dropped = _limit_binary(parts, limit.max_bytes)
    note = Text(_dropped_note(dropped, limit.max_bytes)) if dropped else None
    kept = [note if p is _DROPPED else p for p in kept]  # type: ignore[misc]
    reserved = len(note.text) if note is not None else 0
    texts = [i for i, p in enumerate(kept) if p is not note and _text_of(p) is not None]
    total = sum(len(_text_of(kept[i]) or "") for i in texts)
    if limit.max_chars is None or total + reserved <= limit.max_chars:
        return kept, note is not None
    pieces = _cut_stream([_text_of(kept[i]) or "" for i in texts], limit.max_chars, reserved)
    for index, piece in zip(texts, pieces, strict=True):
        kept[index] = _with_text(kept[index], piece)
    return [p for p in kept if _text_of(p) != ""], True


_DROPPED = Text("")  # a placeholder, compared by identity


def _limit_binary(
    parts: list[Content], max_bytes: int | None
) -> tuple[list[Content], list[Content]]:
    kept: list[Content] = []
    dropped: list[Content] = []
    used = 0
    for part in parts:
        size = _binary_size(part)
        if size is None or max_bytes is None or used + size <= max_bytes:
            kept.append(part)
            used += size or 0
            continue
        if not dropped:
            kept.append(_DROPPED)
        dropped.append(part)
    return kept, dropped


def _binary_size(part: Content) -> int | None:
    if isinstance(part, Image | Audio):
        return len(part.data)
    if isinstance(part, File) and isinstance(part.data, bytes):
        return len(part.data)
    return None


def _dropped_note(dropped: list[Content], max_bytes: int | None) -> str:
    listed = "; ".join(
        f"{getattr(p, 'mime_type', '?')[:60]}, {_size(_binary_size(p) or 0)}" for p in dropped[:3]
    )
    more = f"; and {len(dropped) - 3} more" if len(dropped) > 3 else ""
    count = "1 attachment" if len(dropped) == 1 else f"{len(dropped)} attachments"
    return (
        f"[{count} left out ({listed}{more}): over the limit of {_size(max_bytes or 0)} for "
        "one tool result. If you need it, ask the tool for something smaller or fewer files.]"
    )


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KiB"
    return f"{count / (1024 * 1024):.1f} MiB"


def _text_of(part: Content) -> str | None:
    if isinstance(part, Text):
        return part.text
    if isinstance(part, File) and isinstance(part.data, str):
        return part.data
    return None


def _with_text(part: Content, text: str) -> Content:
    return Text(text) if isinstance(part, Text) else replace(part, data=text)  # type: ignore[type-var]


def _cut_stream(texts: list[str], max_chars: int, reserved: int) -> list[str]:
    """Keep the start and the end of ``texts`` read as one stream; put the note at the cut."""
    total = sum(len(t) for t in texts)
    note = cut_note(total, max_chars)
    budget = max(max_chars - reserved - len(note), 0)
    head_end = budget - budget // 2
    tail_start = total - budget // 2
    out: list[str] = []
    start = 0
    placed = False
    for text in texts:
        end = start + len(text)
        head = _head(text, max(0, min(len(text), head_end - start)))
        tail = _tail(text, max(0, tail_start - start)) if end > tail_start else ""
        piece = head
        if not placed and end >= head_end:
            piece += note
            placed = True
        out.append(piece + tail)
        start = end
    return out


def _head(text: str, count: int) -> str:
    if 0 < count < len(text) and "\ud800" <= text[count - 1] <= "\udbff":
        count -= 1  # do not split a surrogate pair
    return text[:count]


def _tail(text: str, begin: int) -> str:
    if 0 < begin < len(text) and "\udc00" <= text[begin] <= "\udfff":
        begin += 1
    return text[begin:]
