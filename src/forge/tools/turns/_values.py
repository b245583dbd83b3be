"""What one turn of a tool loop gives back: the model's turn rebuilt, then the answers."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from forge.tools.replies import format_results
from forge.tools.values.calls import ToolCall
from forge.tools.values.results import ToolResult

__all__ = ["AssistantTurn", "Delta", "Turn"]


class Delta(NamedTuple):
    """What one stream chunk or event added."""

    text: str
    """The answer text it added (often ``""``)."""
    calls: list[ToolCall]
    """The calls it completed (often none): they can start before the stream ends."""


@dataclass(frozen=True, kw_only=True, slots=True)
class AssistantTurn:
    """The model's side of a turn, read from its response or stream (nothing run yet)."""

    provider: str
    """The provider the response came from (``openai``, ``anthropic``, ...)."""
    items: tuple[dict[str, Any], ...]
    """The assistant turn as the provider takes it back in the next request: one message
    (Chat Completions, Anthropic, Gemini, Bedrock, Mistral, Ollama) or the output items
    (Responses), reasoning, thinking blocks and signatures included."""
    calls: tuple[ToolCall, ...]
    """The tool calls the model made, in order."""
    text: str
    """The text the model wrote (thinking and reasoning left out)."""
    revealed: tuple[str, ...] = ()
    """The deferred tools the provider's own tool search loaded this turn (Anthropic,
    OpenAI Responses; see `forge.tools.parsing.revealed_tools`); its blocks or items stay
    in `items`, echoed back unchanged."""

    def answer(self, results: Iterable[ToolResult]) -> Turn:
        """The whole turn, once ``results`` (one per call, in order) are known."""
        done = tuple(results)
        replies = format_results(done, self.provider) if done else []
        return Turn(
            provider=self.provider, assistant=self.items, calls=self.calls, results=done,
            replies=tuple(replies), text=self.text, revealed=self.revealed,
        )  # fmt: skip


@dataclass(frozen=True, kw_only=True, slots=True)
class Turn:
    """One round trip: the model's turn and the answers to its tool calls.

    Append `messages` to the conversation and ask the model again until `done`.
    """

    provider: str
    """The provider the response came from."""
    assistant: tuple[dict[str, Any], ...]
    """The model's turn as the provider takes it back (see `AssistantTurn.items`)."""
    calls: tuple[ToolCall, ...]
    """The tool calls the model made, in order."""
    results: tuple[ToolResult, ...]
    """One result per call, in call order (failures included, written for the model)."""
    replies: tuple[dict[str, Any], ...]
    """The results in the provider's format (`forge.tools.format_results`): alone, what a
    Responses request with ``previous_response_id`` takes as ``input``."""
    text: str
    """The text the model wrote this turn (its answer, when `done`)."""
    revealed: tuple[str, ...] = ()
    """The deferred tools the provider's own tool search loaded this turn."""

    @property
    def done(self) -> bool:
        """Whether the model called no tool: its text is the answer."""
        return not self.calls

    @property
    def messages(self) -> list[dict[str, Any]]:
        """What to append to the conversation: the model's turn, then the tool results."""
        return [*self.assistant, *self.replies]
