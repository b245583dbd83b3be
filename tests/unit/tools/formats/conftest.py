"""Oracles for the format tests: the official SDKs' own types, and the BFCL corpus."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forge.tools import Tool, from_record
from forge.tools.formats.names import NameMap
from forge.tools.importers.bfcl import load_definitions
from forge.tools.importers.normalize import NormalizedDefinition
from tests.conftest import corpus

Check = Callable[[Any], None]


def _typed_dict(kind: Any) -> Check:
    from pydantic import TypeAdapter

    adapter = TypeAdapter(kind)

    def check(definition: Any) -> None:
        # TypedDict validation drops unknown keys, so equality catches typos.
        assert adapter.validate_python(definition) == definition

    return check


def _gemini(definition: Any) -> None:
    from google.genai import types

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # unknown enum values only warn
        model = types.Tool.model_validate({"functionDeclarations": [definition]})
    dumped = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert dumped == {"functionDeclarations": [definition]}


def _mcp(definition: Any) -> None:
    import mcp.types

    model = mcp.types.Tool.model_validate(definition)
    assert model.model_dump(mode="json", by_alias=True, exclude_none=True) == definition


def _pydantic(kind: Any) -> Check:
    def check(definition: Any) -> None:
        kind.model_validate(definition)

    return check


@functools.cache
def _bedrock_input() -> Any:
    import botocore.session

    service = botocore.session.get_session().get_service_model("bedrock-runtime")
    return service.operation_model("Converse").input_shape


def _bedrock(definition: Any) -> None:
    from botocore.validate import ParamValidator

    params = {
        "modelId": "model",
        "messages": [{"role": "user", "content": [{"text": "hi"}]}],
        "toolConfig": {"tools": [definition]},
    }
    report = ParamValidator().validate(params, _bedrock_input())
    assert not report.has_errors(), report.generate_report()


def _langchain(definition: Any) -> None:
    from langchain_core.tools import StructuredTool

    assert isinstance(definition, StructuredTool)
    assert definition.args == definition.args_schema["properties"]


@functools.cache
def oracles() -> dict[str, Check]:
    """One check per provider, each using that provider's official SDK type."""
    import ollama
    from anthropic.types import ToolParam
    from mistralai.client.models import Tool as MistralTool
    from openai.types.chat import ChatCompletionToolParam
    from openai.types.responses import FunctionToolParam

    return {
        "openai": _typed_dict(ChatCompletionToolParam),
        "openai-responses": _typed_dict(FunctionToolParam),
        "anthropic": _typed_dict(ToolParam),
        "gemini": _gemini,
        "ollama": _pydantic(ollama.Tool),
        "bedrock": _bedrock,
        "mistral": _pydantic(MistralTool),
        "mcp": _mcp,
        "langchain": _langchain,
    }


@pytest.fixture(scope="session")
def sdk() -> dict[str, Check]:
    """Provider name -> a check that raises unless its SDK accepts a definition."""
    return oracles()


def bfcl_files() -> list[Path]:
    """Every BFCL question file, or a clear failure when the corpus is missing."""
    return sorted(corpus("bfcl").glob("BFCL_v4_*.json"))


def _noop(**kwargs: Any) -> dict[str, Any]:
    return kwargs


@functools.cache
def bfcl_corpus() -> tuple[NameMap, tuple[NormalizedDefinition, ...], tuple[Tool, ...]]:
    """The distinct BFCL definitions, normalised, and a tool for each."""
    names = NameMap()
    definitions = tuple(load_definitions(bfcl_files(), names=names))
    tools = tuple(from_record(d.to_record(_noop)) for d in definitions)
    return names, definitions, tools


@pytest.fixture(scope="session")
def bfcl() -> tuple[NameMap, tuple[NormalizedDefinition, ...], tuple[Tool, ...]]:
    """(name map, normalised definitions, tools) for every distinct BFCL definition."""
    return bfcl_corpus()
