"""A YAML safe loader with bounds: alias expansion, nesting depth and integer length.

PyYAML shares an aliased node instead of copying it, so a "billion laughs" file loads
small and explodes later, in whatever walks it (a JSON check, a deep copy, schema
validation). This loader counts the nodes every alias stands for while composing and
refuses the file past `MAX_ALIAS_NODES`, before any of that runs.
"""

from __future__ import annotations

from typing import Any, cast

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from forge.tools.config._limits import MAX_ALIAS_NODES, MAX_DEPTH, Refused, parse_int

__all__ = ["AliasBomb", "load_yaml"]

_REFUSED_TAG = "tag:forge-tools,2026:refused"


class AliasBomb(Exception):
    """A YAML file whose aliases expand past the limit or refer to themselves (internal)."""


class _BoundedLoader(yaml.SafeLoader):
    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._expanded = 0
        self._sizes: dict[int, int] = {}

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        if self.check_event(yaml.AliasEvent):
            line = self.peek_event().start_mark.line + 1  # type: ignore[no-untyped-call]
            return self._count_alias(cast("Node", super().compose_node(parent, index)), line)
        if self._depth >= MAX_DEPTH and self.check_event(
            yaml.SequenceStartEvent, yaml.MappingStartEvent
        ):
            return self._skip_deep()
        self._depth += 1
        try:
            node = cast("Node", super().compose_node(parent, index))  # None only for no document
        finally:
            self._depth -= 1
        self._sizes[id(node)] = 1 + sum(self._sizes.get(id(c), 1) for c in _children(node))
        return node

    def _count_alias(self, node: Node, line: int) -> Node:
        size = self._sizes.get(id(node))
        if size is None:
            raise AliasBomb(
                f"the alias at line {line} refers to a node that contains it (a recursive "
                "alias); write the value out instead"
            )
        self._expanded += size
        if self._expanded > MAX_ALIAS_NODES:
            raise AliasBomb(
                f"the aliases (*name) expand to more than {MAX_ALIAS_NODES:,} nodes by line "
                f"{line} (the limit); the file was not loaded. Write the values out, or alias "
                "smaller ones"
            )
        return node

    def _skip_deep(self) -> Node:
        """Consume a subtree nested past `MAX_DEPTH` and stand a refused marker in for it."""
        start = self.get_event()  # type: ignore[no-untyped-call]
        level = 1
        while level:
            event = self.get_event()  # type: ignore[no-untyped-call]
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


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _refused(loader: yaml.SafeLoader, node: Node) -> Refused:
    return Refused(str(node.value))


def _int(loader: yaml.SafeLoader, node: ScalarNode) -> int | Refused:
    try:
        value: int = loader.construct_yaml_int(node)
    except ValueError:
        return parse_int(str(node.value))
    return value


_BoundedLoader.add_constructor(_REFUSED_TAG, _refused)
_BoundedLoader.add_constructor("tag:yaml.org,2002:int", _int)


def load_yaml(text: str) -> Any:
    """Parse one YAML document with the safe loader and the bounds above.

    Raises:
        AliasBomb: The aliases expand past `MAX_ALIAS_NODES` or are recursive.
        yaml.YAMLError: The text is not YAML.
    """
    loader = _BoundedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
