"""A server's start pauses the cyclic garbage collector and leaves it as it found it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from forge._cli import startup
from forge.cli import EXIT_USAGE, main


@pytest.fixture(autouse=True)
def collector() -> Iterator[None]:
    was = gc.isenabled()
    yield
    gc.unfreeze()
    if was:
        gc.enable()


def test_a_serve_that_fails_before_serving_restarts_the_collector_unfrozen() -> None:
    frozen = gc.get_freeze_count()
    assert main(["serve", "--transport", "carrier-pigeon"]) == EXIT_USAGE
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen


def test_a_collector_the_caller_disabled_stays_disabled() -> None:
    gc.disable()
    assert main(["serve", "--transport", "carrier-pigeon"]) == EXIT_USAGE
    assert not gc.isenabled()
    startup.pause()
    startup.serving()
    assert not gc.isenabled()


def test_serving_freezes_what_the_start_made_and_restarts_the_collector() -> None:
    startup.pause()
    assert not gc.isenabled()
    made = [[n] for n in range(1000)]  # what a start leaves: long-lived objects
    startup.serving()
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(made)
    startup.resume()  # a second call changes nothing
    assert gc.isenabled()
