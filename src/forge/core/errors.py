"""The forge-tools exception hierarchy.

Every exception the library raises at its callers derives from `ForgeError`,
and each also subclasses the builtin it resembles so callers can catch either.
This is the whole tree; a class defined in another module (with the code that
raises it, or needing an optional dependency) is marked with where to import it::

    ForgeError(Exception)
    ├── ToolError(ForgeError)                      .tool_name, .message
    │   ├── ToolDefinitionError(ToolError, ValueError)   bad name, schema, record or handler
    │   ├── DuplicateToolError(ToolError, ValueError)    name already registered
    │   ├── ToolNotFoundError(ToolError, LookupError)    no tool by that name
    │   ├── ToolValidationError(ToolError, ValueError)   arguments do not match the schema
    │   ├── ToolExecutionError(ToolError, RuntimeError)  a run that failed (Tool.execute)
    │   └── SchemaConversionError(ToolError, ValueError) a schema a provider cannot express
    ├── UnsupportedProviderError(ForgeError, ValueError) unknown provider name
    │   └── NoNativeSearchError(UnsupportedProviderError) no native tool search (deferral)
    │           import from forge.tools.formats.deferral
    ├── ToolCallFormatError(ForgeError, ValueError)      a response is not in a provider's shape
    │       import from forge.tools
    ├── MissingDependencyError(ForgeError, ImportError)  an optional extra is not installed
    ├── ConfigError(ForgeError, ValueError)              configuration files with invalid tools
    ├── DuplicateHandlerError(ForgeError, ValueError)    a configuration handler name is taken
    ├── BlockedAddressError(ForgeError, PermissionError) an HTTP tool's target is not allowed
    ├── ClientCapabilityError(ForgeError, RuntimeError)  the caller cannot answer a tool's question
    ├── MCPConnectionError(ForgeError, ConnectionError)  an MCP server cannot be reached
    │       import from forge.mcp
    ├── HeaderValueError(ForgeError, ValueError)        an MCP server's header HTTP cannot send
    │       import from forge.mcp
    ├── InsecureBindError(ForgeError, ValueError)        HTTP beyond loopback without a token
    │       import from forge.mcp
    ├── ServersFileError(ForgeError, ValueError)         a gateway's servers.json that is invalid
    │       import from forge.gateway
    ├── OpenAPIError(ForgeError, ValueError)             an OpenAPI document that cannot be read
    │       import from forge.tools.config.openapi
    ├── ToolsSpecError(ForgeError, ValueError)           a MODULE:ATTR that is not tools
    ├── BadRequestError(ForgeError, ValueError)          a catalog request that cannot be used
    │       import from forge.catalog
    └── ConfirmationRequiredError(ForgeError, PermissionError)  a destructive run not confirmed
            import from forge.catalog

    ConfigWarning(UserWarning)                           invalid tools skipped (non-strict loading)
    RemoteFallbackWarning(RuntimeWarning)                a handler Ray cannot ship runs locally
            import from forge.tools.integrations.ray

Failures a *model* can cause (unknown tool, bad arguments, handler errors) are
returned as failed `ToolResult`s by the executor; these exceptions are for
developers: definition mistakes and the raising entry points. The warnings are
for a developer too: `load_tools` skipped definitions instead of raising, and a
tool whose handler cannot be pickled runs in this process instead of on Ray.

Outside the tree, a call made wrongly gets the builtin Python uses for that: a
`TypeError` for an argument of the wrong type, a `ValueError` for a value out of
range (``limit=0``, an unknown ``transport``), a `RuntimeError` for a call out of
order (connecting a client twice). Value objects (`ToolParameter`,
`ToolExample`, `ToolAnnotations`, ...) check their own fields that way, and
every way of defining a tool turns those errors into a `ToolDefinitionError`
naming the tool. The few other exception classes in the package are internal
control flow, private and caught before they reach a caller (each says so).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from forge.core.text import article

__all__ = [
    "BlockedAddressError",
    "ClientCapabilityError",
    "ConfigError",
    "ConfigWarning",
    "DuplicateHandlerError",
    "DuplicateToolError",
    "FieldError",
    "ForgeError",
    "MissingDependencyError",
    "SchemaConversionError",
    "ToolDefinitionError",
    "ToolError",
    "ToolExecutionError",
    "ToolNotFoundError",
    "ToolValidationError",
    "ToolsSpecError",
    "UnsupportedProviderError",
]


class ForgeError(Exception):
    """Root of every exception raised by forge-tools."""


class ToolError(ForgeError):
    """An error about one tool.

    Args:
        tool_name: The tool the error is about.
        message: What went wrong and how to fix it.
    """

    def __init__(self, tool_name: str, message: str) -> None:
        super().__init__(tool_name, message)
        self.tool_name = tool_name
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} (tool {self.tool_name!r})"


class ToolDefinitionError(ToolError, ValueError):
    """A tool definition is invalid: raised when the tool is defined or registered."""


class DuplicateToolError(ToolError, ValueError):
    """A tool with the same name is already registered; the first one stays."""

    def __init__(self, tool_name: str, message: str | None = None) -> None:
        super().__init__(
            tool_name,
            message
            or "a tool with this name is already registered; deregister it first, "
            "pass replace=True, or call update()",
        )


class ToolExecutionError(ToolError, RuntimeError):
    """A tool ran and failed: its handler raised, timed out or was denied (`Tool.execute`).

    ``result`` is the failed `ToolResult`; ``message`` is the text a model would read.
    """

    def __init__(self, tool_name: str, message: str, *, result: Any = None) -> None:
        super().__init__(tool_name, message)
        self.result = result


class ToolNotFoundError(ToolError, LookupError):
    """No tool with the requested name is registered."""

    def __init__(
        self, tool_name: str, message: str | None = None, *, suggestions: Sequence[str] = ()
    ) -> None:
        self.suggestions = tuple(suggestions)
        if message is None:
            message = "no tool with this name is registered"
            if self.suggestions:
                message += "; did you mean " + " or ".join(repr(s) for s in self.suggestions) + "?"
        super().__init__(tool_name, message)


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldError:
    """One problem with one argument."""

    path: str
    """Where the problem is: a parameter name, or a dotted path into it (``items.0.id``)."""
    message: str
    """What is wrong, written for a person or a model."""
    kind: str
    """A stable machine-readable kind: ``missing``, ``unexpected``, ``type``, ``enum``, ..."""

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ToolValidationError(ToolError, ValueError):
    """Arguments do not match the tool's parameters schema.

    Attributes:
        errors: Every problem found, one per field, in schema order.
    """

    def __init__(
        self, tool_name: str, errors: Sequence[FieldError], message: str | None = None
    ) -> None:
        self.errors = tuple(errors)
        if message is None:
            details = "; ".join(str(e) for e in self.errors) or "arguments rejected"
            message = f"invalid arguments: {details}"
        super().__init__(tool_name, message)

    @property
    def missing(self) -> tuple[str, ...]:
        """Names of the required parameters that were not given."""
        return tuple(e.path for e in self.errors if e.kind == "missing")


class SchemaConversionError(ToolError, ValueError):
    """A tool's schema uses something a provider's format cannot express.

    Attributes:
        provider: The target provider.
        keyword: The JSON Schema keyword (or definition part) that cannot be expressed.
        path: Where in the schema it is (a JSON pointer, ``""`` for the root).
    """

    def __init__(
        self, tool_name: str, *, provider: str, keyword: str, path: str, reason: str
    ) -> None:
        self.provider = provider
        self.keyword = keyword
        self.path = path
        self.reason = reason
        where = path or "/"
        super().__init__(
            tool_name,
            f"cannot convert to {provider}: {keyword!r} at {where}: {reason}",
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_conversion_error, (self.tool_name, self.provider, self.keyword,
                                            self.path, self.reason))  # fmt: skip


def _rebuild_conversion_error(
    tool_name: str, provider: str, keyword: str, path: str, reason: str
) -> SchemaConversionError:
    return SchemaConversionError(
        tool_name, provider=provider, keyword=keyword, path=path, reason=reason
    )


class UnsupportedProviderError(ForgeError, ValueError):
    """A provider name that forge-tools does not know."""

    def __init__(self, provider: object, supported: Sequence[str]) -> None:
        self.provider = provider
        self.supported = tuple(supported)
        super().__init__(
            f"unsupported provider {provider!r}; supported providers: {', '.join(self.supported)}"
        )

    def __reduce__(self) -> tuple[type[UnsupportedProviderError], tuple[object, tuple[str, ...]]]:
        return (type(self), (self.provider, self.supported))


class ToolsSpecError(ForgeError, ValueError):
    """A ``MODULE:ATTRIBUTE`` tools reference (``--tools``, ``serve(tools=...)``) that cannot
    be loaded: the module or attribute is missing, or it is not a registry or tools."""


class MissingDependencyError(ForgeError, ImportError):
    """An optional integration was used without its extra installed."""

    def __init__(self, package: str, extra: str) -> None:
        from forge import __version__

        # forge-tools is not on PyPI: name the two installs that work.
        super().__init__(
            f"{package!r} is required for this feature; install forge-tools with its {extra!r} "
            f"extra (forge-tools[{extra}]): `pip install '.[{extra}]'` in a forge-tools "
            f"checkout, or `pip install 'forge_tools-{__version__}-py3-none-any.whl[{extra}]'` "
            "with the wheel `make dist` builds"
        )
        self.package = package
        self.extra = extra

    def __reduce__(self) -> tuple[type[MissingDependencyError], tuple[str, str]]:
        return (type(self), (self.package, self.extra))


class ConfigError(ForgeError, ValueError):
    """Tool configuration files hold invalid definitions or cannot be read (strict mode).

    Attributes:
        issues: Every problem found, each naming its file, tool and reason.
    """

    def __init__(self, issues: Sequence[object]) -> None:
        self.issues = tuple(issues)
        super().__init__(
            f"{_problems(self.issues)}; nothing was registered:\n{_lines(self.issues)}"
        )

    def __reduce__(self) -> tuple[type[ConfigError], tuple[tuple[object, ...]]]:
        return (type(self), (self.issues,))


class DuplicateHandlerError(ForgeError, ValueError):
    """A configuration handler is already registered under this name; the first one stays.

    Attributes:
        kind: What the handlers are (``builtin`` or ``internal``).
        name: The name that is taken.
    """

    def __init__(self, kind: str, name: str) -> None:
        self.kind = kind
        self.name = name
        super().__init__(
            f"{article(kind)} handler named {name!r} is already registered; register the "
            "new one under another name, or on a new registry (HandlerRegistry.copy())"
        )

    def __reduce__(self) -> tuple[type[DuplicateHandlerError], tuple[str, str]]:
        return (type(self), (self.kind, self.name))


class ConfigWarning(UserWarning):
    """`load_tools` skipped invalid definitions or unreadable files and registered the rest.

    Emitted once per call, listing every problem; ``LoadReport.issues`` holds the
    same problems. Pass ``strict=True`` to raise `ConfigError` instead, or filter
    this category once the report is handled.

    Attributes:
        issues: Every problem found, each naming its file, tool and reason.
    """

    def __init__(self, issues: Sequence[object]) -> None:
        self.issues = tuple(issues)
        super().__init__(
            f"{_problems(self.issues)}; the invalid definitions were skipped and the valid "
            f"ones registered:\n{_lines(self.issues)}"
        )

    def __reduce__(self) -> tuple[type[ConfigWarning], tuple[tuple[object, ...]]]:
        return (type(self), (self.issues,))


def _problems(issues: Sequence[object]) -> str:
    return f"{len(issues)} problem{'' if len(issues) == 1 else 's'} in the tool configuration"


def _lines(issues: Sequence[object]) -> str:
    return "\n".join(f"  {issue}" for issue in issues)


class BlockedAddressError(ForgeError, PermissionError):
    """An HTTP tool's target resolves to an address it may not reach (private, loopback...)."""

    def __init__(self, host: str, address: str, reason: str) -> None:
        self.host = host
        self.address = address
        self.reason = reason
        super().__init__(
            f"refused to connect to {host!r}: it resolves to {address}, {article(reason)} address; "
            "private, loopback and link-local targets are blocked unless the loader is given "
            "allow_private_network (True, or the addresses allowed)"
        )

    def __reduce__(self) -> tuple[type[BlockedAddressError], tuple[str, str, str]]:
        return (type(self), (self.host, self.address, self.reason))


class ClientCapabilityError(ForgeError, RuntimeError):
    """A tool asked its caller for something the caller cannot give (elicitation, sampling).

    Raised inside the tool, by ``ExecutionContext.elicit`` or ``ExecutionContext.sample``,
    so the tool can catch it and carry on without the answer.

    Args:
        capability: ``"elicitation"`` or ``"sampling"``.
        reason: Why the caller cannot answer, and how to make it able to.
    """

    def __init__(self, capability: str, reason: str) -> None:
        self.capability = capability
        self.reason = reason
        super().__init__(f"cannot ask the caller for {capability}: {reason}")

    def __reduce__(self) -> tuple[type[ClientCapabilityError], tuple[str, str]]:
        return (type(self), (self.capability, self.reason))
