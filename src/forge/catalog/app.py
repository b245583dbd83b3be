"""The catalog over HTTP: an ASGI app serving the front end and the JSON API (starlette).

Routes (the contract the front end is written against):

=======================================  ===============================================
``GET /``, ``GET /static/<file>``         the single-page app, from the package data
``POST /login``                           form field ``token`` -> the ``forge_catalog`` cookie
``GET /api/session``                      ``{"csrf"}``: the token state-changing requests send
``GET /api/tools?q=&category=&tag=``      the tool list (`Catalog.tools`)
``GET /api/tools/{name}``                 one tool's page (`Catalog.tool`)
``POST /api/tools/{name}/validate``       ``{"arguments"}`` checked only
``POST /api/tools/{name}/run``            ``{"arguments", "confirm"}`` run by the executor
``GET /api/events``                       ``text/event-stream``: ``tools``, ``metrics``
``GET /api/metrics``                      per-tool calls, failures, p50/p95
=======================================  ===============================================

Every response carries a strict ``Content-Security-Policy`` (``default-src 'self'``, no
inline script). With a token, everything but ``POST /login`` and the sign-in page's
stylesheet and icon needs it (`_auth`). A request that changes something must come from
the catalog's own page (`_csrf`): its own origin, a JSON body and the CSRF token (or the
bearer token). Each client address may hold only a few event streams open, and the server
only a few more in all (`StreamBudget`).
"""

from __future__ import annotations

import hmac
import json
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from starlette.concurrency import run_in_threadpool
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route, Router

from forge.catalog._auth import COOKIE, PUBLIC_ASSETS, Sessions, cookie_value, login_page
from forge.catalog._csrf import CsrfTokens, SameOriginWrites
from forge.catalog._static import load_assets
from forge.catalog.errors import BadRequestError, ConfirmationRequiredError
from forge.catalog.events import (
    HEARTBEAT_SECONDS,
    MAX_STREAMS,
    MAX_STREAMS_PER_CLIENT,
    METRICS_SECONDS,
    StreamBudget,
    event_stream,
)
from forge.catalog.service import Catalog
from forge.core.auth import bearer_matches
from forge.core.errors import ToolNotFoundError
from forge.core.logging import get_logger

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CONTENT_SECURITY_POLICY", "MAX_BODY_BYTES", "catalog_app"]

logger = get_logger("tools.catalog")

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
MAX_BODY_BYTES = 1024 * 1024
"""The largest request body read (a form's arguments, a login)."""
STREAM_RETRY_SECONDS = 30
"""What a client refused an event stream is told to wait (``Retry-After``)."""
_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    # Not "no-referrer": under it Chromium sends "Origin: null" with the login form's POST,
    # which the server's Origin check (DNS rebinding) refuses with 403.
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]


def catalog_app(
    catalog: Catalog,
    *,
    token: str | None = None,
    heartbeat: float = HEARTBEAT_SECONDS,
    metrics_every: float = METRICS_SECONDS,
    max_streams_per_client: int = MAX_STREAMS_PER_CLIENT,
    max_streams: int = MAX_STREAMS,
) -> ASGIApp:
    """The catalog's ASGI app; with ``token``, requests need it (header or login cookie).

    ``heartbeat`` and ``metrics_every`` are the event stream's intervals, in seconds;
    ``max_streams_per_client`` and ``max_streams`` cap the open event streams.
    """
    sessions = Sessions()
    assets = load_assets()
    streams = StreamBudget(per_client=max_streams_per_client, overall=max_streams)
    api = _Api(catalog, heartbeat, metrics_every, streams)
    tokens = CsrfTokens()

    async def index(request: Request) -> Response:
        return _asset(assets, "index.html")

    async def static(request: Request) -> Response:
        return _asset(assets, request.path_params["path"])

    async def login(request: Request) -> Response:
        return await _login(request, token, sessions)

    async def session(request: Request) -> Response:
        return _json({"csrf": tokens.issue(writes.session(request.headers.raw))})

    router = Router(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/static/{path:path}", static, methods=["GET"]),
            Route("/login", login, methods=["POST"]),
            Route("/api/session", session, methods=["GET"]),
            Route("/api/tools", api.tools, methods=["GET"]),
            Route("/api/tools/{name}", api.tool, methods=["GET"]),
            Route("/api/tools/{name}/validate", api.validate, methods=["POST"]),
            Route("/api/tools/{name}/run", api.run, methods=["POST"]),
            Route("/api/events", api.events, methods=["GET"]),
            Route("/api/metrics", api.metrics, methods=["GET"]),
            Route("/api/{rest:path}", api.unknown),
        ]
    )
    writes = SameOriginWrites(router, token=token, tokens=tokens)
    app: ASGIApp = writes
    if token:
        app = _RequireToken(app, token, sessions)
    return _SecurityHeaders(app)


class _Api:
    """The JSON routes: each maps a request onto one `Catalog` method."""

    def __init__(
        self, catalog: Catalog, heartbeat: float, metrics_every: float, streams: StreamBudget
    ) -> None:
        self.catalog = catalog
        self.heartbeat = heartbeat
        self.metrics_every = metrics_every
        self.streams = streams
        self._encoded: tuple[int, bytes] = (-1, b"")

    async def tools(self, request: Request) -> Response:
        params = request.query_params
        q, category, tags = params.get("q"), params.get("category"), params.getlist("tag")
        if not (q or category or tags):
            return await run_in_threadpool(self._all_tools)
        return await _answer(
            lambda: run_in_threadpool(self.catalog.tools, q=q, category=category, tags=tags)
        )

    def _all_tools(self) -> Response:
        """The whole list, its JSON encoded once per registry version (10,000 tools: 2 MB)."""
        listing = self.catalog.tools()
        version, body = self._encoded
        if version != listing["version"]:
            body = bytes(_json(listing).body)
            self._encoded = (listing["version"], body)
        return Response(body, headers={"cache-control": "no-store"},
                        media_type="application/json")  # fmt: skip

    async def tool(self, request: Request) -> Response:
        name = request.path_params["name"]
        return await _answer(lambda: run_in_threadpool(self.catalog.tool, name))

    async def validate(self, request: Request) -> Response:
        name = request.path_params["name"]

        async def answer() -> Any:
            body = await _json_body(request)
            return await run_in_threadpool(self.catalog.validate, name, body)

        return await _answer(answer)

    async def run(self, request: Request) -> Response:
        name = request.path_params["name"]

        async def answer() -> Any:
            return await self.catalog.run(name, await _json_body(request))

        return await _answer(answer)

    async def metrics(self, request: Request) -> Response:
        return await _answer(lambda: run_in_threadpool(self.catalog.metrics))

    async def events(self, request: Request) -> Response:
        client = request.client.host if request.client else ""
        refused = self.streams.take(client)
        if refused is not None:
            response = _json({"error": "too_many_streams", "message": refused}, 429)
            response.headers["retry-after"] = str(STREAM_RETRY_SECONDS)
            return response
        stream = event_stream(
            self.catalog.feed,
            self.catalog.metrics,
            heartbeat=self.heartbeat,
            metrics_every=self.metrics_every,
        )
        return _CountedStream(
            stream,
            lambda: self.streams.give_back(client),
            media_type="text/event-stream",
            headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
        )

    async def unknown(self, request: Request) -> Response:
        return _json(
            {"error": "not_found", "message": f"no catalog API at {request.url.path}"}, 404
        )


class _CountedStream(StreamingResponse):
    """A streamed response that gives its place back however it ends (even unstarted)."""

    def __init__(self, content: Any, release: Callable[[], None], **options: Any) -> None:
        super().__init__(content, **options)
        self._release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()


async def _answer(compute: Callable[[], Awaitable[Any]]) -> Response:
    """Run one API call; errors the client caused become their status, anything else 500."""
    try:
        return _json(await compute())
    except BadRequestError as exc:
        return _json({"error": "bad_request", "message": str(exc)}, 400)
    except ToolNotFoundError as exc:
        return _json({"error": "not_found", "message": _not_found(exc)}, 404)
    except ConfirmationRequiredError as exc:
        return _json({"error": "confirmation_required", "message": str(exc)}, 409)
    except Exception as exc:
        logger.exception("the catalog failed to answer")
        message = f"the catalog could not answer: {type(exc).__name__}: {exc}"
        return _json({"error": "internal", "message": message}, 500)


def _not_found(exc: ToolNotFoundError) -> str:
    message = f"no tool named {exc.tool_name!r} in this catalog"
    if exc.suggestions:
        return message + "; did you mean " + " or ".join(map(repr, exc.suggestions)) + "?"
    return message


def _json(data: Any, status: int = 200) -> Response:
    """A JSON response (outputs reach here already JSON-safe: NaN as a string, bytes as text)."""
    body = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return Response(body.encode(), status, headers={"cache-control": "no-store"},
                    media_type="application/json")  # fmt: skip


async def _body(request: Request) -> bytes:
    """The request body, refused past `MAX_BODY_BYTES`."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise BadRequestError(f"the request body is larger than {MAX_BODY_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def _json_body(request: Request) -> Any:
    raw = await _body(request)
    if not raw.strip():
        raise BadRequestError('the request body is empty; send a JSON object: {"arguments": {...}}')
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except BadRequestError:
        raise
    except UnicodeDecodeError:
        raise BadRequestError("the request body is not UTF-8 text; send JSON") from None
    except json.JSONDecodeError as exc:
        raise BadRequestError(
            f"the request body is not valid JSON: {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno}"
        ) from None
    except RecursionError:
        raise BadRequestError(
            "the request body nests arrays or objects too deeply to be read (past about "
            "1,000 levels); flatten it"
        ) from None
    except ValueError:  # an integer past the digit limit of int()
        raise BadRequestError(
            f"the request body holds an integer of more than {sys.get_int_max_str_digits():,} "
            "digits, more than the server reads; send it as a string"
        ) from None


def _no_constant(name: str) -> Any:
    raise BadRequestError(
        f"the request body is not valid JSON: {name} is not a JSON number; send it as a string"
    )


def _asset(assets: dict[str, Any], path: str) -> Response:
    found = assets.get(path)
    if found is None:
        text = f"no file {path!r} in the catalog's front end"
        return Response(text, 404, media_type="text/plain")
    return Response(found.body, headers={"cache-control": "no-cache"},
                    media_type=found.content_type)  # fmt: skip


async def _login(request: Request, token: str | None, sessions: Sessions) -> Response:
    """Check the posted token; on success set the session cookie and go to the catalog."""
    if not token:
        return Response(status_code=303, headers={"location": "/"})
    try:
        form = parse_qs((await _body(request)).decode("utf-8"), max_num_fields=8)
    except (BadRequestError, UnicodeDecodeError, ValueError):
        form = {}
    given = (form.get("token") or [""])[0]
    if not hmac.compare_digest(given.strip().encode(), token.encode()):
        page = login_page("That token is not the server's token. Try again.")
        return Response(page, 401, media_type="text/html; charset=utf-8")
    cookie = f"{COOKIE}={sessions.create()}; HttpOnly; SameSite=Strict; Path=/"
    return Response(status_code=303, headers={"location": "/", "set-cookie": cookie})


class _RequireToken:
    """Refuse requests with neither the bearer token nor a live session cookie (401).

    ``POST /login`` passes (it checks the token itself), and so do the stylesheet and icon
    the sign-in page loads. ``/api/*`` gets a JSON error, any other path the sign-in page.
    """

    def __init__(self, app: ASGIApp, token: str, sessions: Sessions) -> None:
        self.app = app
        self._token = token.encode()
        self._sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._allowed(scope):
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        if path.startswith("/api/"):
            body = json.dumps({"error": "unauthorized", "message": (
                "this catalog needs the server's token: send 'Authorization: Bearer <token>' "
                "or sign in at /")}).encode()  # fmt: skip
            content_type = b"application/json"
        else:
            body, content_type = login_page(), b"text/html; charset=utf-8"
        headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode()),
                   (b"www-authenticate", b'Bearer realm="forge-tools"'),
                   (b"cache-control", b"no-store")]  # fmt: skip
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _allowed(self, scope: Scope) -> bool:
        path, method = scope.get("path"), scope.get("method")
        if (path == "/login" and method == "POST") or (path in PUBLIC_ASSETS and method == "GET"):
            return True
        headers = scope.get("headers", ())
        return bearer_matches(headers, self._token) or self._sessions.valid(cookie_value(headers))


class _SecurityHeaders:
    """Add the content security policy and its companions to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *_HEADERS]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
