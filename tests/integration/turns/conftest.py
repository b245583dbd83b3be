"""The local model API every turn-loop test talks to, with the SDKs pointed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.turns.stub import StubAPI, running


@pytest.fixture(scope="module")
def server() -> Iterator[StubAPI]:
    """One local API for the module."""
    yield from running()


@pytest.fixture
def api(server: StubAPI, monkeypatch: pytest.MonkeyPatch) -> Iterator[StubAPI]:
    """The local API, empty, with every SDK pointed at it by its own environment variables."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.url)
    monkeypatch.setenv("GEMINI_API_KEY", "test")
    server.reset()
    yield server
    assert not server.replies, "the loop stopped before the model's last reply"
