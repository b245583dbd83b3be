"""A running tool's progress, logs and questions reach the callbacks of its `ExecutionContext`."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from forge.core.errors import ClientCapabilityError
from forge.tools import ErrorKind, ExecutionContext, ToolExecutor, ToolRegistry, tool
from forge.tools.values.channel import (
    Elicitation,
    ElicitRequest,
    LogMessage,
    Progress,
    Sampled,
    SampleRequest,
)


class Person(BaseModel):
    name: str
    age: int


@tool
async def count_up(steps: int, ctx: ExecutionContext) -> str:
    """Report progress once per step, then log that it is done."""
    for done in range(1, steps + 1):
        await ctx.report_progress(done, steps, f"step {done}")
    await ctx.log("info", "counted", logger="count_up")
    return "ok"


@tool
def count_up_sync(steps: int, ctx: ExecutionContext) -> str:
    """`count_up` for a sync tool (runs on a worker thread)."""
    for done in range(1, steps + 1):
        ctx.report_progress_sync(done, steps)
    ctx.log_sync("warning", {"steps": steps})
    return threading.current_thread().name


@tool(placement="inline")
def count_up_inline(steps: int, ctx: ExecutionContext) -> str:
    """`count_up` for a sync tool that runs on the event loop's thread."""
    for done in range(1, steps + 1):
        ctx.report_progress_sync(done, steps)
    return "ok"


@tool
async def who(ctx: ExecutionContext) -> str:
    """Ask the user who they are."""
    try:
        answer = await ctx.elicit("Who are you?", Person)
    except ClientCapabilityError as exc:
        return f"no answer ({exc.capability})"
    return f"{answer.data.name} is {answer.data.age}" if answer.data else answer.action


@tool
def who_sync(ctx: ExecutionContext) -> str:
    """Ask the user for a colour with a JSON schema, from a worker thread."""
    schema = {"type": "object", "properties": {"colour": {"type": "string"}}}
    answer = ctx.elicit_sync("Favourite colour?", schema)
    return f"{answer.action}: {answer.content}"


@tool(placement="inline")
def who_inline(ctx: ExecutionContext) -> str:
    """Ask from the event loop's own thread (which cannot wait for an answer)."""
    return ctx.elicit_sync("Who?", Person).action


@tool
async def haiku(ctx: ExecutionContext) -> str:
    """Ask the caller's model for a haiku."""
    answer = await ctx.sample("Write a haiku", system="Be short", temperature=0.2)
    return f"{answer.text} ({answer.model})"


@tool
def haiku_sync(ctx: ExecutionContext) -> str:
    """Ask the caller's model, with a conversation, from a worker thread."""
    conversation = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
    return ctx.sample_sync(conversation, stop=["\n"]).text


REGISTRY = ToolRegistry(
    [count_up, count_up_sync, count_up_inline, who, who_sync, who_inline, haiku, haiku_sync]
)


def run(name: str, context: ExecutionContext, **arguments: Any) -> Any:
    async def body() -> Any:
        with ToolExecutor(REGISTRY) as executor:
            return await executor.run(name, arguments, context)

    return asyncio.run(body())


# -- progress and logs ------------------------------------------------------------------------


def test_an_async_tools_progress_and_logs_reach_plain_callbacks() -> None:
    """Each report and log message is one event, in order."""
    events: list[Any] = []
    context = ExecutionContext(on_progress=events.append, on_log=events.append)
    assert run("count_up", context, steps=2).output == "ok"
    assert events == [
        Progress(done=1, total=2, message="step 1"),
        Progress(done=2, total=2, message="step 2"),
        LogMessage(level="info", message="counted", logger="count_up"),
    ]


def test_a_sync_tool_on_a_worker_thread_reaches_coroutine_callbacks_on_the_loop() -> None:
    """Coroutine callbacks of a sync tool run on the event loop, in order, before it returns."""
    events: list[tuple[Any, str]] = []

    async def record(event: Any) -> None:
        events.append((event, threading.current_thread().name))

    async def body() -> Any:
        context = ExecutionContext(on_progress=record, on_log=record)
        with ToolExecutor(REGISTRY) as executor:
            return await executor.run("count_up_sync", {"steps": 3}, context)

    result = asyncio.run(body())
    here = threading.current_thread().name
    assert result.output != here  # the tool ran on a worker thread...
    assert {thread for _, thread in events} == {here}  # ...the callbacks on the loop's thread
    assert [event for event, _ in events] == [
        Progress(done=1, total=3), Progress(done=2, total=3), Progress(done=3, total=3),
        LogMessage(level="warning", message={"steps": 3}),
    ]  # fmt: skip


def test_a_sync_tool_on_the_loops_thread_schedules_coroutine_callbacks_in_order() -> None:
    """An inline sync tool cannot wait for the loop: its notifications are sent right after."""
    seen: list[float] = []

    async def record(event: Progress) -> None:
        seen.append(event.done)

    async def body() -> Any:
        context = ExecutionContext(on_progress=record)
        with ToolExecutor(REGISTRY) as executor:
            result = await executor.run("count_up_inline", {"steps": 3}, context)
        for _ in range(3):
            await asyncio.sleep(0)
        return result

    assert asyncio.run(body()).output == "ok"
    assert seen == [1, 2, 3]


def test_sync_code_without_a_loop_runs_a_coroutine_callback_on_its_own() -> None:
    """From plain sync code, a coroutine callback still runs (on a private event loop)."""
    seen: list[Progress] = []

    async def record(event: Progress) -> None:
        seen.append(event)

    ExecutionContext(on_progress=record).report_progress_sync(1, None, "half")
    assert seen == [Progress(done=1, message="half")]


def test_without_callbacks_reports_and_logs_do_nothing() -> None:
    """A context with no listener accepts progress and logs silently."""
    assert run("count_up", ExecutionContext(), steps=2).output == "ok"
    assert run("count_up_sync", ExecutionContext(), steps=2).success


def test_an_unknown_log_level_is_a_clear_error() -> None:
    """A level that is not a syslog severity names the ones there are."""
    with pytest.raises(ValueError, match="unknown log level 'verbose'; use one of debug, info"):
        asyncio.run(ExecutionContext().log("verbose", "x"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown log level"):
        ExecutionContext().log_sync("loud", "x")  # type: ignore[arg-type]


@given(st.lists(st.integers(min_value=0, max_value=10**6), max_size=30))
def test_any_sequence_of_reports_arrives_whole_and_in_order(values: list[int]) -> None:
    """Whatever a tool reports from a worker thread, the callback sees exactly that sequence."""
    seen: list[float] = []

    async def record(event: Progress) -> None:
        seen.append(event.done)

    async def body() -> None:
        context = ExecutionContext(on_progress=record)

        def work() -> None:
            for value in values:
                context.report_progress_sync(value)

        await asyncio.to_thread(work)

    asyncio.run(body())
    assert seen == values


# -- elicitation ------------------------------------------------------------------------------


def test_elicit_sends_the_models_schema_and_validates_the_answer() -> None:
    """The request carries the model's JSON schema; an accepted answer comes back as the model."""
    asked: list[ElicitRequest] = []

    async def answer(request: ElicitRequest) -> Elicitation[Any]:
        asked.append(request)
        return Elicitation(action="accept", content={"name": "Ada", "age": 36})

    assert run("who", ExecutionContext(on_elicit=answer)).output == "Ada is 36"
    assert asked[0].message == "Who are you?"
    assert asked[0].schema == Person.model_json_schema()


def test_a_mapping_answer_is_accepted_and_a_declined_one_has_no_data() -> None:
    """A callback may return the answer itself; a decline reaches the tool as the action."""
    assert run("who", ExecutionContext(on_elicit=lambda r: {"name": "Bo", "age": 7})).output == (
        "Bo is 7"
    )
    declined = ExecutionContext(on_elicit=lambda r: Elicitation(action="decline"))
    assert run("who", declined).output == "decline"


def test_an_answer_that_does_not_fit_the_model_fails_the_call_naming_the_field() -> None:
    """pydantic's error names the field the answer got wrong."""
    context = ExecutionContext(on_elicit=lambda r: {"name": "Ada", "age": "old"})
    result = run("who", context)
    assert result.error_kind is ErrorKind.TOOL_ERROR
    assert "age" in (result.error or "")
    with pytest.raises(ValidationError):
        asyncio.run(context.elicit("?", Person))


def test_without_an_elicit_callback_the_tool_gets_an_error_it_can_handle() -> None:
    """`ClientCapabilityError` says how to give the context a callback."""
    assert run("who", ExecutionContext()).output == "no answer (elicitation)"
    with pytest.raises(ClientCapabilityError, match=r"no on_elicit callback.*ExecutionContext"):
        asyncio.run(ExecutionContext().elicit("?", Person))
    with pytest.raises(ClientCapabilityError, match="no on_elicit callback"):
        ExecutionContext().elicit_sync("?", {"type": "object"})


def test_a_sync_tool_on_a_worker_thread_waits_for_a_coroutine_answer() -> None:
    """``elicit_sync`` blocks its worker thread until the loop has the answer."""

    async def answer(request: ElicitRequest) -> dict[str, str]:
        await asyncio.sleep(0)
        return {"colour": "teal"}

    result = run("who_sync", ExecutionContext(on_elicit=answer))
    assert result.output == "accept: {'colour': 'teal'}"


def test_a_question_from_the_loops_own_thread_says_how_to_fix_it() -> None:
    """An inline sync tool cannot wait for a coroutine answer: the error says what to change."""

    async def answer(request: ElicitRequest) -> dict[str, Any]:
        return {"name": "x", "age": 1}

    result = run("who_inline", ExecutionContext(on_elicit=answer))
    assert result.success is False
    assert "cannot wait for the answer on the event loop's thread" in (result.error or "")


@pytest.mark.parametrize("schema", [Person(name="a", age=1), int, "schema"])
def test_elicit_refuses_a_schema_that_is_not_one(schema: Any) -> None:
    """The schema is a pydantic model class or a JSON schema mapping."""
    with pytest.raises(TypeError, match="pydantic model class or a JSON schema"):
        asyncio.run(ExecutionContext(on_elicit=print).elicit("?", schema))


def test_a_callback_returning_something_else_is_a_clear_error() -> None:
    """The callback's contract is named when it returns the wrong thing."""
    with pytest.raises(TypeError, match="must return an Elicitation or the answer as a mapping"):
        asyncio.run(ExecutionContext(on_elicit=lambda r: 42).elicit("?", Person))
    with pytest.raises(TypeError, match="must return a Sampled or a string"):
        asyncio.run(ExecutionContext(on_sample=lambda r: 42).sample("?"))


# -- sampling ---------------------------------------------------------------------------------


def test_sample_sends_the_prompt_and_options_and_returns_the_completion() -> None:
    """A text prompt is one user message; the options reach the callback."""
    asked: list[SampleRequest] = []

    async def complete(request: SampleRequest) -> Sampled:
        asked.append(request)
        return Sampled(text="Old pond", model="m1", stop_reason="endTurn")

    assert run("haiku", ExecutionContext(on_sample=complete)).output == "Old pond (m1)"
    assert asked == [
        SampleRequest(
            messages=({"role": "user", "content": "Write a haiku"},), system="Be short",
            temperature=0.2,
        )
    ]  # fmt: skip


def test_a_sync_tool_samples_with_a_conversation_and_a_plain_string_answer() -> None:
    """``sample_sync`` takes a conversation; a callback may answer with the text alone."""
    asked: list[SampleRequest] = []

    def complete(request: SampleRequest) -> str:
        asked.append(request)
        return "General Kenobi"

    assert run("haiku_sync", ExecutionContext(on_sample=complete)).output == "General Kenobi"
    assert len(asked[0].messages) == 2
    assert asked[0].stop == ("\n",)


@pytest.mark.parametrize(
    "prompt", [[], [{"role": "system", "content": "x"}], [{"role": "user", "content": 1}]]
)
def test_a_malformed_conversation_is_a_clear_error(prompt: Any) -> None:
    """Messages are user or assistant turns of text; at least one."""
    with pytest.raises(ValueError, match="sample"):
        asyncio.run(ExecutionContext(on_sample=str).sample(prompt))


def test_without_a_sample_callback_the_tool_gets_an_error_it_can_handle() -> None:
    """The error names the capability, so a tool can tell what it lacks."""
    with pytest.raises(ClientCapabilityError) as caught:
        asyncio.run(ExecutionContext().sample("Hi"))
    assert caught.value.capability == "sampling"
    with pytest.raises(ClientCapabilityError):
        ExecutionContext().sample_sync("Hi")


# -- the context itself -----------------------------------------------------------------------


def test_callbacks_survive_replace() -> None:
    """``replace`` keeps the callbacks."""
    context = ExecutionContext(on_progress=print).replace(timeout=5)
    assert context.on_progress is print
    assert context.timeout == 5
