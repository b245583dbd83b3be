"""The bookkeeping every fragment-based accumulator shares: one slot per call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from forge.core.text import shown
from forge.tools.parsing import ToolCallFormatError, cut_off_call, generated_id
from forge.tools.values.calls import ToolCall

__all__ = ["Slot", "Slots", "block_index"]


@dataclass(slots=True)
class Slot:
    """One call being assembled from fragments."""

    order: tuple[int, ...]
    """Where the call goes in the final list (message, provider index, arrival)."""
    id: str | None = None
    name: str = ""
    parts: list[str] = field(default_factory=list)
    """Argument text fragments, in arrival order."""
    whole: Any = None
    """Arguments the provider sent whole (an object, or the final text), if any."""
    call: ToolCall | None = None
    """The finished call, once complete."""

    def add_name(self, name: Any) -> None:
        """Take a name fragment: the first sets it, a repeat of it is ignored."""
        if not name or not isinstance(name, str) or name == self.name:
            return
        self.name += name

    def add_part(self, fragment: Any) -> None:
        """Take an argument text fragment; a value that is not text is kept whole instead.

        (A fragment that is not text is a malformed stream: the finished call says so.)
        """
        if isinstance(fragment, str):
            if fragment:
                self.whole = None
                self.parts.append(fragment)
        elif fragment is not None:
            self.whole = fragment

    def build(self, index: int, *, cut_off: bool = False) -> ToolCall:
        """Finish the call from what arrived (truncated text is flagged, not guessed).

        ``cut_off``: the stream ended before the call's end event. A call none of whose
        arguments arrived then carries that problem: ``{}`` is not what the model sent.
        """
        raw = self.whole if self.whole is not None else "".join(self.parts)
        call_id = self.id or generated_id(index, self.name, raw)
        if cut_off and raw == "":
            self.call = cut_off_call(call_id, self.name)
        else:
            self.call = ToolCall.from_raw(call_id, self.name, raw)
        return self.call


class Slots:
    """Calls in progress and finished, kept in the order the model made them."""

    def __init__(self) -> None:
        self.all: list[Slot] = []
        self.arrivals = 0

    def new(self, *order: int) -> Slot:
        """Open a slot for a new call."""
        self.arrivals += 1
        slot = Slot((*order, self.arrivals))
        self.all.append(slot)
        return slot

    def complete(self, slot: Slot | None, *, cut_off: bool = False) -> list[ToolCall]:
        """Finish ``slot`` if it is open; return the finished call as a list (or ``[]``)."""
        if slot is None or slot.call is not None:
            return []
        return [slot.build(slot.order[-1] - 1, cut_off=cut_off)]

    def complete_all(self, *, cut_off: bool = False) -> list[ToolCall]:
        """Finish every open slot, in order (``cut_off``: see `Slot.build`)."""
        done: list[ToolCall] = []
        for slot in sorted(self.all, key=_order):
            done.extend(self.complete(slot, cut_off=cut_off))
        return done

    def calls(self, *, cut_off: bool = False) -> list[ToolCall]:
        """Every call, finishing the open ones, in order.

        ``cut_off``: the provider ends each call with an event, so a call still open is
        one the stream cut off (see `Slot.build`).
        """
        self.complete_all(cut_off=cut_off)
        return [s.call for s in sorted(self.all, key=_order) if s.call is not None]


def _order(slot: Slot) -> tuple[int, ...]:
    return slot.order


def block_index(value: Any, where: str) -> int | None:
    """The content block index of a stream event (``None`` when it has none).

    Raises:
        ToolCallFormatError: The index is not an integer.
    """
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ToolCallFormatError(
        f"{where} has a block index that is {type(value).__name__} {shown(value, 80)}, "
        "not an integer"
    )
