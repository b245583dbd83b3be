"""A default event loop a test leaves open is closed in its own teardown, not by the GC later."""

from __future__ import annotations

import asyncio
import warnings

LEFT: list[asyncio.AbstractEventLoop] = []


def test_a_library_leaves_the_default_loop_open() -> None:
    """As pydantic-ai's ``run_sync`` does: the thread's default loop, made and kept."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:  # an earlier test set none: make one as pydantic-ai does
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
    LEFT.append(loop)
    assert not loop.is_closed()


def test_the_loop_left_by_the_test_before_is_closed_and_unset() -> None:
    """Closed in the teardown of the test that left it; no longer the thread's loop."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            current = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:
            current = None
    for loop in LEFT:
        assert loop.is_closed()
        assert current is not loop
