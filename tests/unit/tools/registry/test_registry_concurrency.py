"""ToolRegistry under concurrent readers and writers."""

import random
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from forge.core.errors import DuplicateToolError, ToolNotFoundError
from forge.tools import RegistryEvent, Tool, ToolCategory, ToolRegistry, tool

WRITERS = 3
READERS = 4
NAMES_PER_WRITER = 8
GENERATIONS = 3
RUN_SECONDS = 2.0
CATEGORIES = (ToolCategory.FILE, ToolCategory.WEB, ToolCategory.CODE)


def make_tool(name: str, generation: int, category: ToolCategory) -> Tool:
    """Build a tool whose handler reports its name, generation and argument."""

    def handler(n: int = 0) -> tuple[str, int, int]:
        return (name, generation, n)

    return tool(
        name=name,
        description=f"Variant {generation} of {name}.",
        category=category,
        tags=(f"gen{generation}",),
    )(handler)


@contextmanager
def fast_thread_switching() -> Iterator[None]:
    """Make the interpreter switch threads often, so operations interleave more."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


def run_threads(targets: list[Callable[[], None]]) -> list[str]:
    """Start every target at once, wait for all, and return the tracebacks of failures."""
    errors: list[str] = []
    barrier = threading.Barrier(len(targets))

    def wrap(target: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                barrier.wait()
                target()
            except BaseException:
                errors.append(f"{threading.current_thread().name}:\n{traceback.format_exc()}")

        return run

    threads = [
        threading.Thread(target=wrap(t), name=f"worker-{i}", daemon=True)
        for i, t in enumerate(targets)
    ]
    with fast_thread_switching():
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    return errors


def test_concurrent_readers_and_writers_see_consistent_state() -> None:
    """Readers racing writers never fail or see torn state, and the end state is predictable."""
    registry = ToolRegistry()
    variants: dict[str, list[Tool]] = {}
    owner_names: list[list[str]] = []
    for w in range(WRITERS):
        names = [f"w{w}_tool{k}" for k in range(NAMES_PER_WRITER)]
        owner_names.append(names)
        for k, name in enumerate(names):
            category = CATEGORIES[k % len(CATEGORIES)]
            variants[name] = [make_tool(name, g, category) for g in range(GENERATIONS)]
    all_names = list(variants)
    known_ids = {name: {id(t) for t in ts} for name, ts in variants.items()}
    # Each writer's model of its own names, in the order the registry should list them.
    models: list[dict[str, Tool]] = [{} for _ in range(WRITERS)]
    counts: Counter[str] = Counter()
    deadline = time.monotonic() + RUN_SECONDS

    def check_tool(t: Tool, name: str | None = None) -> None:
        if name is not None:
            assert t.name == name, (t.name, name)
        assert t.name in known_ids, t.name
        assert id(t) in known_ids[t.name], f"unknown object for {t.name}"

    def check_unique(tools: list[Tool]) -> None:
        names = [t.name for t in tools]
        assert len(names) == len(set(names)), f"duplicate names in one listing: {names}"
        for t in tools:
            check_tool(t)

    def writer(w: int) -> None:
        rng = random.Random(1000 + w)
        names = owner_names[w]
        model = models[w]

        def pick(name: str) -> Tool:
            current = model.get(name)
            choices = [t for t in variants[name] if t is not current]
            return rng.choice(choices)

        while time.monotonic() < deadline:
            name = rng.choice(names)
            op = rng.randrange(6)
            if op == 0:
                new = pick(name)
                if name in model:
                    try:
                        registry.register(new)
                    except DuplicateToolError:
                        pass
                    else:
                        raise AssertionError(f"duplicate {name} was accepted")
                else:
                    assert registry.register(new) is new
                    model[name] = new
            elif op == 1:
                new = pick(name)
                assert registry.register(new, replace=True) is new
                model[name] = new
            elif op == 2:
                new = pick(name)
                updated = registry.update(name, new)
                assert updated is (name in model)
                if updated:
                    model[name] = new
            elif op == 3:
                removed = registry.deregister(name)
                assert removed is (name in model)
                model.pop(name, None)
            else:
                free = [n for n in names if n not in model]
                batch = [pick(n) for n in rng.sample(free, min(2, len(free)))]
                assert registry.register_many(batch) == batch
                for t in batch:
                    model[t.name] = t
            # Only this writer touches its names, so it must read its own writes.
            for own in names:
                assert registry.get(own) is model.get(own), own
            counts[f"writer{w}"] += 1

    def reader(r: int) -> None:
        rng = random.Random(2000 + r)
        last_version = -1
        while time.monotonic() < deadline:
            version = registry.version
            assert version >= last_version, (version, last_version)
            last_version = version

            for name in rng.sample(all_names, 6):
                found = registry.get(name)
                if found is not None:
                    check_tool(found, name)
                assert isinstance(registry.exists(name), bool)
                assert isinstance(name in registry, bool)
                handler = registry.get_handler(name)
                assert handler is None or callable(handler)

            listed = registry.list_all()
            check_unique(listed)
            names = registry.names()
            assert len(names) == len(set(names)), names
            assert set(names) <= set(all_names)
            assert 0 <= len(registry) <= len(all_names)

            iterated = []
            for t in registry:
                iterated.append(t)
            check_unique(iterated)

            category = rng.choice(CATEGORIES)
            by_category = registry.list_by_category(category)
            check_unique(by_category)
            assert all(t.category is category for t in by_category)

            tagged = registry.list_by_tag("gen1")
            check_unique(tagged)
            assert all("gen1" in t.tags for t in tagged)

            definitions = registry.definitions()
            def_names = [d["name"] for d in definitions]
            assert len(def_names) == len(set(def_names))

            name = rng.choice(all_names)
            n = rng.randrange(100)
            try:
                result = registry.execute(name, {"n": n})
            except ToolNotFoundError:
                pass
            else:
                assert result.success, result.error
                assert result.tool_name == name
                out_name, generation, out_n = result.output
                assert (out_name, out_n) == (name, n)
                assert 0 <= generation < GENERATIONS

            if counts[f"reader{r}"] % 25 == 0:
                check_unique(registry.search("variant tool", limit=50))

            assert registry.version >= last_version
            counts[f"reader{r}"] += 1

    targets: list[Callable[[], None]] = [lambda w=w: writer(w) for w in range(WRITERS)]
    targets += [lambda r=r: reader(r) for r in range(READERS)]
    assert len(targets) >= 6
    errors = run_threads(targets)

    assert errors == [], "\n".join(errors)
    for w in range(WRITERS):
        assert counts[f"writer{w}"] > 0
    for r in range(READERS):
        assert counts[f"reader{r}"] > 0

    # The final state is exactly what the writers' last operations imply.
    expected = {name: t for model in models for name, t in model.items()}
    assert len(registry) == len(expected)
    assert set(registry.names()) == set(expected)
    for name in all_names:
        assert registry.get(name) is expected.get(name), name
    final_names = registry.names()
    for w, model in enumerate(models):
        own = set(owner_names[w])
        assert [n for n in final_names if n in own] == list(model), f"order of writer {w}"
    for name, t in expected.items():
        assert registry.execute(name, {"n": 1}).output == (name, variants[name].index(t), 1)


def test_concurrent_registrations_deliver_each_event_exactly_once() -> None:
    """Events from many threads mutating at once are each delivered once, after the change."""
    registry = ToolRegistry()
    threads, per_thread = 8, 25
    events: list[RegistryEvent] = []
    invisible: list[str] = []

    def listener(event: RegistryEvent) -> None:
        assert event.name is not None
        # Names are owned by one thread, so the state seen here must be the event's.
        if registry.get(event.name) is not event.tool:
            invisible.append(f"{event.type} {event.name}")
        events.append(event)

    for kind in ("registered", "updated", "removed"):
        registry.on(kind, listener)
    tools = {
        t: [
            (
                make_tool(f"t{t}_{i}", 0, ToolCategory.CODE),
                make_tool(f"t{t}_{i}", 1, ToolCategory.WEB),
            )
            for i in range(per_thread)
        ]
        for t in range(threads)
    }

    def work(t: int) -> None:
        for first, _ in tools[t][: per_thread // 2]:
            registry.register(first)
        registry.register_many([first for first, _ in tools[t][per_thread // 2 :]])
        for i, (_, second) in enumerate(tools[t]):
            if i % 2:
                assert registry.update(second.name, second)
            else:
                registry.register(second, replace=True)
        for first, _ in tools[t]:
            assert registry.deregister(first.name)

    errors = run_threads([lambda t=t: work(t) for t in range(threads)])
    assert errors == [], "\n".join(errors)
    assert invisible == []

    names = [f"t{t}_{i}" for t in range(threads) for i in range(per_thread)]
    received = Counter((e.type, e.name) for e in events)
    expected = Counter(
        {(kind, n): 1 for n in names for kind in ("registered", "updated", "removed")}
    )
    assert received == expected
    assert len(events) == 3 * threads * per_thread
    assert len({id(e) for e in events}) == len(events)
    assert len(registry) == 0

    # Every mutation got its own version: one event each, or one per tool of a batch.
    batch_size = per_thread - per_thread // 2
    mutations_per_thread = per_thread // 2 + 1 + per_thread + per_thread
    assert registry.version == threads * mutations_per_thread
    by_version: dict[int, list[RegistryEvent]] = {}
    for e in events:
        by_version.setdefault(e.version, []).append(e)
    assert set(by_version) == set(range(1, registry.version + 1))
    sizes = Counter(len(group) for group in by_version.values())
    assert sizes == Counter({1: registry.version - threads, batch_size: threads})


def test_racing_registrations_of_one_name_have_one_winner() -> None:
    """When many threads register the same name at once, one wins and the rest get duplicates."""
    registry = ToolRegistry()
    contenders = [make_tool("shared", g % GENERATIONS, ToolCategory.CODE) for g in range(12)]
    events: list[RegistryEvent] = []
    registry.on("registered", events.append)
    winners: list[Tool] = []
    losers: list[Tool] = []

    def attempt(t: Tool) -> None:
        try:
            registry.register(t)
        except DuplicateToolError:
            losers.append(t)
        else:
            winners.append(t)

    errors = run_threads([lambda t=t: attempt(t) for t in contenders])
    assert errors == [], "\n".join(errors)
    assert len(winners) == 1
    assert len(losers) == len(contenders) - 1
    assert registry.get("shared") is winners[0]
    assert [(e.name, e.tool) for e in events] == [("shared", winners[0])]
    assert registry.version == 1


def test_listener_subscription_during_emission_does_not_break_delivery() -> None:
    """Subscribing and unsubscribing listeners while other threads register never raises."""
    registry = ToolRegistry()
    registrars, per_registrar = 3, 40
    delivered: list[str | None] = []
    registry.on("registered", lambda event: delivered.append(event.name))
    done = threading.Semaphore(0)
    stop = threading.Event()

    def register(t: int) -> None:
        try:
            for i in range(per_registrar):
                registry.register(make_tool(f"c{t}_{i}", 0, ToolCategory.CODE))
        finally:
            done.release()

    def churn() -> None:
        def transient(event: RegistryEvent) -> None:
            del event

        while not stop.is_set():
            registry.on("registered", transient)
            registry.off("registered", transient)

    def watchdog() -> None:
        for _ in range(registrars):
            done.acquire()
        stop.set()

    targets: list[Callable[[], None]] = [lambda t=t: register(t) for t in range(registrars)]
    targets += [churn, churn, watchdog]
    errors = run_threads(targets)
    assert errors == [], "\n".join(errors)
    names = [f"c{t}_{i}" for t in range(registrars) for i in range(per_registrar)]
    assert len(registry) == len(names)
    assert Counter(delivered) == Counter(names)


def test_listener_events_arrive_in_version_order_across_writers() -> None:
    """Events of many writers reach every listener in the order of their versions."""
    registry = ToolRegistry()
    seen: dict[str, list[int]] = {"first": [], "second": []}

    def slow_listener(event: RegistryEvent) -> None:
        time.sleep(0)  # let another writer in between two deliveries
        seen["first"].append(event.version)

    def listener(event: RegistryEvent) -> None:
        seen["second"].append(event.version)

    for kind in ("registered", "updated", "removed", "cleared"):
        registry.on(kind, slow_listener)
        registry.on(kind, listener)
    threads, rounds = 12, 40

    def work(t: int) -> None:
        for i in range(rounds):
            name = f"w{t}_{i % 3}"
            registry.register(make_tool(name, i, ToolCategory.CODE), replace=True)
            if i % 5 == 0:
                registry.register_many(
                    [make_tool(f"b{t}_{i}_{k}", i, ToolCategory.WEB) for k in range(3)]
                )
            if i % 2:
                registry.update(name, make_tool(name, i + 1, ToolCategory.WEB))
            registry.deregister(name)

    errors = run_threads([lambda t=t: work(t) for t in range(threads)])
    assert errors == [], "\n".join(errors)
    for versions in seen.values():
        assert versions == sorted(versions)
        assert versions[-1] == registry.version
        assert set(versions) == set(range(1, registry.version + 1))


def test_a_change_made_by_a_listener_is_delivered_after_the_current_event() -> None:
    """A listener that changes the registry does not interleave events for the others."""
    registry = ToolRegistry()
    seen: list[tuple[str, int]] = []

    def chain(event: RegistryEvent) -> None:
        if event.name == "a":
            registry.register(make_tool("b", 0, ToolCategory.CODE))

    registry.on("registered", chain)
    registry.on("registered", lambda e: seen.append((str(e.name), e.version)))
    registry.register(make_tool("a", 0, ToolCategory.CODE))
    assert seen == [("a", 1), ("b", 2)]
