"""A YAML safe loader with bounds: alias expansion, nesting depth and integer length.

PyYAML shares an aliased node instead of copying it, so a "billion laughs" file loads
small and explodes later, in whatever walks it (a JSON check, a deep copy, schema
validation). This loader counts the nodes every alias stands for while composing.
Each tool definition may expand to `MAX_ALIAS_NODES`: past it the definition is
replaced by a small refused stand-in (its name kept), so that tool alone is skipped
with the reason and composing goes on at the cost of the text. The definitions kept,
and anything outside them, may expand to `MAX_FILE_ALIAS_NODES` in all; past that the
file is refused.

With libyaml, its C parser reads the events and only the composing above runs in Python;
a text it rejects is read again by the pure-Python parser, whose errors are the ones
reported. A text with a tab is left to the pure-Python parser, which refuses tabs in
places libyaml takes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from forge.tools.config._limits import (
    MAX_ALIAS_NODES,
    MAX_DEPTH,
    MAX_FILE_ALIAS_NODES,
    Refused,
    parse_int,
)

__all__ = ["AliasBomb", "load_yaml"]

_REFUSED_TAG = "tag:forge-tools,2026:refused"
_STR_TAG = "tag:yaml.org,2002:str"


class AliasBomb(Exception):
    """A YAML file whose aliases expand past the whole-file limit (internal)."""


class _Definition:
    """The alias budget of the tool definition being composed."""

    def __init__(self) -> None:
        self.expanded = 0
        self.refused: str | None = None
        self.key: str | None = None  # the top-level key the refusal happened under


class _BoundedComposer(Composer):
    """PyYAML's composer with the bounds above, over whichever parser comes after it."""

    if TYPE_CHECKING:  # what the parser after it provides

        def check_event(self, *choices: Any) -> Any: ...
        def peek_event(self) -> Any: ...
        def get_event(self) -> Any: ...

    def _bound(self, *, tools: bool) -> None:
        self._limit = MAX_FILE_ALIAS_NODES if tools else MAX_ALIAS_NODES
        self._scope = "per file" if tools else "per document"
        self._depth = 0
        self._expanded = 0
        self._sizes: dict[int, int] = {}
        self._list_depth = 1 if tools else -1  # the root list or root `tools`; -1: none
        self._definition: _Definition | None = None
        self._key: str | None = None
        self._dropped: list[Node] = []

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        if self._depth == self._list_depth + 1 and isinstance(parent, MappingNode):
            self._key = str(index.value) if isinstance(index, ScalarNode) else None
        if self._starts_definition(parent):
            return self._compose_definition(parent, index)
        if self.check_event(yaml.AliasEvent):
            line = self.peek_event().start_mark.line + 1
            return self._count_alias(cast("Node", super().compose_node(parent, index)), line)
        if self._depth >= MAX_DEPTH and self.check_event(
            yaml.SequenceStartEvent, yaml.MappingStartEvent
        ):
            return self._skip_deep()
        if self._depth == 1 and isinstance(parent, MappingNode) and self._list_depth > 0:
            is_tools = isinstance(index, ScalarNode) and index.value == "tools"
            self._list_depth = 2 if is_tools else -1
        self._depth += 1
        try:
            node = cast("Node", super().compose_node(parent, index))  # None only for no document
        finally:
            self._depth -= 1
        self._sizes[id(node)] = 1 + sum(self._sizes.get(id(c), 1) for c in _children(node))
        return node

    def _starts_definition(self, parent: Node | None) -> bool:
        return (
            self._definition is None
            and self._depth == self._list_depth
            and isinstance(parent, SequenceNode)
        )

    def _compose_definition(self, parent: Node | None, index: Any) -> Node:
        """One tool definition, with its own alias budget; a refused one is replaced."""
        budget = self._definition = _Definition()
        try:
            node = self.compose_node(parent, index)
        finally:
            self._definition = None
        if budget.refused is None:
            self._add_to_file(budget.expanded, node.start_mark.line + 1)
            return node
        self._dropped.append(node)  # kept alive: `_sizes` is keyed by id()
        return _stand_in(node, budget)

    def _add_to_file(self, size: int, line: int) -> None:
        self._expanded += size
        if self._expanded > self._limit:
            raise AliasBomb(
                f"the aliases (*name) expand to more than {self._limit:,} nodes in "
                f"all by line {line} (the limit {self._scope}); the file was not loaded. Write "
                "the values out, or alias smaller ones"
            )

    def _count_alias(self, node: Node, line: int) -> Node:
        budget = self._definition
        size = self._sizes.get(id(node))
        if size is None:
            reason = (
                f"the alias at line {line} refers to a node that contains it (a recursive "
                "alias); write the value out instead"
            )
        elif budget is not None and budget.expanded + size > MAX_ALIAS_NODES:
            reason = (
                f"the aliases (*name) in this definition expand to more than "
                f"{MAX_ALIAS_NODES:,} nodes by line {line} (the limit per tool); write the "
                "values out, or alias smaller ones"
            )
        elif budget is not None:
            budget.expanded += size
            return node
        else:
            self._add_to_file(size, line)
            return node
        if budget is None:
            raise AliasBomb(reason)
        if budget.refused is None:
            budget.refused, budget.key = reason, self._key
        return _refused_node(reason, node)

    def _skip_deep(self) -> Node:
        """Consume a subtree nested past `MAX_DEPTH` and stand a refused marker in for it."""
        start = self.get_event()
        level = 1
        while level:
            event = self.get_event()
            if isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
                level += 1
            elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
                level -= 1
        node = ScalarNode(
            _REFUSED_TAG,
            f"the value at line {start.start_mark.line + 1} nests more than {MAX_DEPTH} "
            "levels deep; flatten it",
            start.start_mark,
            event.end_mark,
        )
        if start.anchor is not None:
            self.anchors[start.anchor] = node
        return node


class _BoundedLoader(_BoundedComposer, yaml.SafeLoader):
    """The pure-Python parser's events, composed with bounds."""

    def __init__(self, stream: str, *, tools: bool = True) -> None:
        super().__init__(stream)
        self._bound(tools=tools)


_FastLoader: Any = None
if yaml.__with_libyaml__:
    from yaml._yaml import CParser

    class _FastLoader(_BoundedComposer, CParser, SafeConstructor, Resolver):  # type: ignore[no-redef]
        """libyaml's events, composed in Python with bounds (the composer comes first)."""

        def __init__(self, stream: str, *, tools: bool = True) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            self._bound(tools=tools)


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _refused_node(reason: str, at: Node) -> ScalarNode:
    return ScalarNode(_REFUSED_TAG, reason, at.start_mark, at.end_mark)


def _stand_in(node: Node, budget: _Definition) -> Node:
    """A refused definition as its name (if it has a plain one) and the reason."""
    reason = _refused_node(budget.refused or "", node)
    if not isinstance(node, MappingNode):
        return reason
    pairs: list[tuple[Node, Node]] = [
        pair
        for pair in node.value
        if isinstance(pair[0], ScalarNode) and pair[0].value == "name" and pair[1].tag == _STR_TAG
    ][:1]
    where = ScalarNode(_STR_TAG, budget.key or "aliases", node.start_mark, node.end_mark)
    return MappingNode(node.tag, [*pairs, (where, reason)], node.start_mark, node.end_mark)


def _refused(loader: yaml.SafeLoader, node: Node) -> Refused:
    return Refused(str(node.value))


def _int(loader: yaml.SafeLoader, node: ScalarNode) -> int | Refused:
    try:
        value: int = loader.construct_yaml_int(node)
    except ValueError:
        return parse_int(str(node.value))
    return value


for _loader in (_BoundedLoader, _FastLoader):
    if _loader is not None:
        _loader.add_constructor(_REFUSED_TAG, _refused)
        _loader.add_constructor("tag:yaml.org,2002:int", _int)


def load_yaml(text: str, *, tools: bool = True) -> Any:
    """Parse one YAML document with the safe loader and the bounds above.

    ``tools=False`` reads a document that holds no tool definitions (an OpenAPI
    document): its aliases may expand to `MAX_ALIAS_NODES` in all.

    Raises:
        AliasBomb: The aliases expand past `MAX_FILE_ALIAS_NODES` (those of refused
            definitions aside), or one outside any definition is recursive.
        yaml.YAMLError: The text is not YAML.
    """
    if _FastLoader is not None and "\t" not in text:  # libyaml takes tabs PyYAML refuses
        fast = _FastLoader(text, tools=tools)
        try:
            return fast.get_single_data()
        except yaml.YAMLError:
            pass  # read again below, for the pure-Python parser's message
        finally:
            fast.dispose()
    loader = _BoundedLoader(text, tools=tools)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
