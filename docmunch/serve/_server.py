"""The MCP server object: tool listing, argument validation, dispatch, ``_meta`` and the ceiling.

Built on the SDK's low-level ``mcp.server.lowlevel.Server`` (not ``MCPServer``/FastMCP) so the
schemas, annotations, ``_meta``, ``isError`` results and progress notifications are exactly
ours. Every tool call runs in a worker thread (``anyio.to_thread.run_sync``) so a long index
run never stops other requests from being answered, once its turn in the per-repo
:class:`~docmunch.serve._order.CallOrder` has come (a read of a repo waits for earlier writes
of it). Error texts pass through :func:`~docmunch.serve._hints.for_agent`.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio
import anyio.from_thread
import anyio.to_thread
import jsonschema
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from docmunch import __version__
from docmunch.errors import DocmunchError, RunCancelled
from docmunch.serve._context import ProgressFn, ToolContext, ToolOutput
from docmunch.serve._handlers import HANDLERS
from docmunch.serve._hints import for_agent
from docmunch.serve._order import CallOrder
from docmunch.serve._tools import INSTRUCTIONS, TOOLS, tool_by_name

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "ENVELOPE_BYTES",
    "apply_ceiling",
    "build_server",
    "max_response_bytes",
    "result_limit",
    "result_size",
]

logger = logging.getLogger("docmunch.serve")

DEFAULT_MAX_RESPONSE_BYTES = 2**20
"""Response ceiling in bytes (1 MiB) unless ``DOCMUNCH_MAX_RESPONSE_BYTES`` says otherwise: the
whole JSON-RPC message that answers a tool call — the result's text block and
``structuredContent``, which carry the same payload twice, its ``_meta``, the request id — less
:data:`ENVELOPE_BYTES`. 1 MiB is also the largest server-sent event the MCP SDK's streamable
HTTP client reads (``DEFAULT_MAX_SSE_EVENT_SIZE`` in ``mcp.client.streamable_http``, 2.x), so
every result of a server left at the default can be read over HTTP."""

ENVELOPE_BYTES = 1024
"""Bytes of the ceiling kept for what wraps the result: ``{"jsonrpc":"2.0","id":…,"result":…}``
and an SSE event's ``event:`` and ``data:`` lines (the id's own length is counted apart)."""

_PROGRESS_INTERVAL_S = 0.05
"""Minimum gap between two progress notifications of one call (the last one always goes out)."""

_FLUSH_INTERVAL_S = 5.0
"""How often the in-memory tokens_saved count is written to the index's persisted counter."""

_INLINE_TOOLS = frozenset(
    {"get_section", "get_sections", "search_sections", "get_document_outline", "list_repos", "list_docs"}
)
"""Quick readers (one indexed lookup or FTS query) run on the event loop once the index is open;
everything else (indexing, whole-repo walks, network) runs in a worker thread."""

_VALIDATORS = {spec.name: jsonschema.Draft202012Validator(spec.input_schema) for spec in TOOLS}
_LISTED_TOOLS = [spec.to_tool() for spec in TOOLS]


def max_response_bytes() -> int:
    """The response ceiling in bytes (``DOCMUNCH_MAX_RESPONSE_BYTES``, default 1 MiB, min 4 KiB)."""
    raw = os.environ.get("DOCMUNCH_MAX_RESPONSE_BYTES", "")
    try:
        return max(4096, int(raw)) if raw.strip() else DEFAULT_MAX_RESPONSE_BYTES
    except ValueError:
        logger.warning("DOCMUNCH_MAX_RESPONSE_BYTES=%r is not an integer; using 1 MiB", raw)
        return DEFAULT_MAX_RESPONSE_BYTES


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _size(value: Any) -> int:
    return len(_dumps(value).encode("utf-8"))


def result_size(payload: Any) -> int:
    """Bytes of a tool result carrying ``payload`` twice, as :func:`build_server` sends it: as
    the JSON text of its text block (escaped once more inside that string) and as
    ``structuredContent``; ``_meta`` and the envelope are counted apart."""
    text = _dumps(payload)
    return len(text.encode("utf-8")) + len(_dumps(text).encode("utf-8")) + 64


def result_limit(ceiling: int, request_id: Any, meta: dict[str, Any]) -> int:
    """The :func:`result_size` a result may take under ``ceiling`` (bytes of the whole message,
    :data:`DEFAULT_MAX_RESPONSE_BYTES`): less :data:`ENVELOPE_BYTES`, the request id and an
    upper bound of the ``_meta`` that :func:`build_server` adds to ``meta`` (never below 1 KiB)."""
    bound = {
        **meta,
        "latency_ms": 10.0**9,
        "sections_returned": 10**9,
        "tokens_saved": 10**15,
        "total_tokens_saved": 10**15,
        "truncated": True,
    }
    spare = ENVELOPE_BYTES + _size(request_id) + _size({"_meta": bound})
    return max(1024, ceiling - spare)


def _cut_utf8(text: str, max_bytes: int) -> str:
    """The longest prefix of ``text`` whose UTF-8 encoding fits in ``max_bytes`` (never splits a char)."""
    return text.encode("utf-8")[: max(0, max_bytes)].decode("utf-8", "ignore")


def _with_text(payload: Any, path: list[str], text: str, extra: dict[str, Any]) -> Any:
    """A copy of ``payload`` whose string at ``path`` is ``text`` and whose object holding it
    also gets ``extra`` (the objects and lists along the path are copied, never changed in
    place; a list is stepped into by a decimal key, ``sections.0.content``)."""
    if isinstance(payload, list):
        at = int(path[0])
        return [*payload[:at], _with_text(payload[at], path[1:], text, extra), *payload[at + 1 :]]
    if len(path) == 1:
        return {**payload, path[0]: text, **extra}
    return {**payload, path[0]: _with_text(payload[path[0]], path[1:], text, extra)}


def _text_at(payload: dict[str, Any], path: list[str]) -> tuple[str, dict[str, Any]] | None:
    """The string at ``path`` and the object holding it, or ``None`` when there is none."""
    holder: Any = payload
    for key in path[:-1]:
        if isinstance(holder, list):
            holder = holder[int(key)] if key.isdigit() and int(key) < len(holder) else None
        else:
            holder = holder.get(key) if isinstance(holder, dict) else None
    if isinstance(holder, dict) and isinstance(holder.get(path[-1]), str):
        return holder[path[-1]], holder
    return None


def _item_ids(items: list[Any], key: str) -> list[Any]:
    return [item.get(key) for item in items if isinstance(item, dict)]


def apply_ceiling(output: ToolOutput, limit: int, size: Callable[[Any], int] = _size) -> dict[str, Any]:
    """The payload, shortened to at most ``limit`` bytes by ``size`` (its JSON bytes unless
    another measure is given: :func:`build_server` gives :func:`result_size`), with
    ``truncated: true`` when cut.

    A list result keeps as many leading items as fit (``next_offset`` then points after them;
    without paging, ``not_returned`` names the items left out by :attr:`ToolOutput.list_item_id`);
    a text result is cut at a UTF-8 character boundary (after its list, if it has one, is
    emptied, or kept to its first item when the text is that item's), and a resumable text
    (:attr:`ToolOutput.resumable`) says where to read on (``next_offset``); anything else is
    replaced by a message.
    """
    payload = output.payload
    if size(payload) <= limit:
        return payload
    if output.list_key and isinstance(payload.get(output.list_key), list):
        items = payload[output.list_key]
        lo, hi = 0, len(items)
        while lo < hi:  # largest prefix that fits
            mid = (lo + hi + 1) // 2
            trial = {**payload, output.list_key: items[:mid], "truncated": True}
            if size(trial) <= limit:
                lo = mid
            else:
                hi = mid - 1
        cut = {**payload, output.list_key: items[:lo], "truncated": True}
        if "offset" in payload:
            cut["next_offset"] = int(payload["offset"]) + lo
        if output.list_item_id:  # no paging: name what was left out
            cut["not_returned"] = _item_ids(items[lo:], output.list_item_id)
        first_text = bool(output.text_key and output.text_key.startswith(f"{output.list_key}.0."))
        if lo == 0 and items and first_text:  # not even the first item fits: it comes back cut
            payload = {**cut, output.list_key: items[:1]}
            if output.list_item_id:
                payload["not_returned"] = _item_ids(items[1:], output.list_item_id)
        elif size(cut) <= limit:
            return cut
        else:
            payload = cut  # not even an empty list fits beside the text: cut the text too
    found = _text_at(payload, output.text_key.split(".")) if output.text_key else None
    if output.text_key and found is not None:
        path = output.text_key.split(".")
        text, holder = found

        def shortened(kept: str) -> dict[str, Any]:
            extra: dict[str, Any] = {"truncated": True}
            if output.resumable:
                extra["next_offset"] = int(holder.get("offset", 0)) + len(kept.encode("utf-8"))
            return {**_with_text(payload, path, kept, extra), "truncated": True}

        overhead = size(shortened(""))
        budget = max(0, limit - overhead)
        kept = _cut_utf8(text, budget)
        cut = shortened(kept)
        while (measured := size(cut)) > limit and kept:
            # escapes (and a text counted twice) make the kept text cost more than its bytes:
            # shrink it in proportion, a little more each time, until it fits
            length = len(kept.encode("utf-8"))
            share = budget / max(1, measured - overhead)
            kept = _cut_utf8(kept, min(length - 1, int(length * share * 0.99)))
            cut = shortened(kept)
        return cut
    return {
        "truncated": True,
        "message": f"the result ({size(payload)} bytes) exceeds the response ceiling of {limit} bytes; "
        "narrow the request (doc_path, limit, max_tokens)",
    }


def _returned(output: ToolOutput, payload: dict[str, Any]) -> int:
    """``output.sections_returned``, or the items the ceiling left of a cut section list."""
    if payload is output.payload or output.list_key not in ("sections", "results"):
        return output.sections_returned
    kept = payload.get(output.list_key)
    return len(kept) if isinstance(kept, list) else 0


def _error_result(message: str, started: float, total_saved: int | None) -> types.CallToolResult:
    meta = {
        "latency_ms": round((time.perf_counter() - started) * 1000, 3),
        "sections_returned": 0,
        "tokens_saved": 0,
        "total_tokens_saved": total_saved,
    }
    return types.CallToolResult(  # type: ignore[call-arg]  # `meta` populates the `_meta` alias
        content=[types.TextContent(type="text", text=message)], is_error=True, meta=meta
    )


def _validation_message(name: str, errors: list[jsonschema.ValidationError]) -> str:
    parts = []
    for err in errors[:3]:
        where = ".".join(str(p) for p in err.absolute_path)
        parts.append(f"{where}: {err.message}" if where else err.message)
    return f"invalid arguments for {name}: " + "; ".join(parts) + " (tools/list shows the schema)"


def _agent_errors(payload: dict[str, Any]) -> None:
    """Rewrite CLI hints in an index report's per-file ``errors`` and its ``source_changed``
    note (in place) for the agent."""
    errors = payload.get("errors")
    if isinstance(errors, list):
        for entry in errors:
            if isinstance(entry, dict) and isinstance(entry.get("error"), str):
                entry["error"] = for_agent(entry["error"])
    changed = payload.get("source_changed")
    if isinstance(changed, dict) and isinstance(changed.get("message"), str):
        changed["message"] = for_agent(changed["message"])


def build_server(tool_ctx: ToolContext, order: CallOrder | None = None) -> Server[Any]:
    """The low-level SDK ``Server`` serving every tool of ``_tools.TOOLS`` over ``tool_ctx``.

    ``order`` orders calls per repo (the stdio transport admits requests to the same object as
    it reads them); a fresh one is used when omitted.
    """
    order = order if order is not None else CallOrder()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=_LISTED_TOOLS)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        started = time.perf_counter()
        name = params.name
        args = dict(params.arguments or {})
        spec = tool_by_name(name)
        if spec is None:
            return _error_result(
                f"unknown tool {name!r}; tools/list shows the available ones",
                started,
                tool_ctx.peek_tokens_saved(),
            )
        errors = sorted(_VALIDATORS[name].iter_errors(args), key=lambda e: [str(p) for p in e.absolute_path])
        if errors:
            return _error_result(_validation_message(name, errors), started, tool_ctx.peek_tokens_saved())
        cancelled = threading.Event()
        progress = _progress_reporter(ctx, cancelled)
        handler = HANDLERS[name]
        ceiling = max_response_bytes()

        def work() -> tuple[ToolOutput, dict[str, Any], int | None]:
            output = handler(tool_ctx, args, progress)
            _agent_errors(output.payload)
            limit = result_limit(ceiling, ctx.request_id, output.meta)
            payload = apply_ceiling(output, limit, result_size)
            try:
                total = tool_ctx.count_tokens_saved(output.tokens_saved)
            except Exception:  # the counter is a nicety; never fail a read over it
                logger.exception("could not record tokens_saved")
                total = None
            return output, payload, total

        try:
            async with order.turn(ctx.request_id, name, args):
                if name in _INLINE_TOOLS and tool_ctx.warm:
                    output, payload, total = work()  # sub-millisecond reads: no thread hop
                else:
                    output, payload, total = await _in_thread(work, cancelled)
        except DocmunchError as err:
            logger.info("%s: %s", name, err)
            return _error_result(for_agent(str(err)), started, tool_ctx.peek_tokens_saved())
        except Exception as err:
            logger.exception("internal error in tool %s", name)
            return _error_result(
                f"internal error: {type(err).__name__}: {err} (details in the server's stderr log)",
                started,
                tool_ctx.peek_tokens_saved(),
            )
        meta: dict[str, Any] = {
            "latency_ms": round((time.perf_counter() - started) * 1000, 3),
            "sections_returned": _returned(output, payload),
            "tokens_saved": output.tokens_saved,
            "total_tokens_saved": total,
            **output.meta,
        }
        if payload is not output.payload:
            meta["truncated"] = True  # the response ceiling cut this result
        return types.CallToolResult(  # type: ignore[call-arg]  # `meta` populates the `_meta` alias
            content=[types.TextContent(type="text", text=_dumps(payload))],
            structured_content=payload,
            meta=meta,
        )

    @asynccontextmanager
    async def lifespan(_: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_flush_tokens_periodically, tool_ctx)
            try:
                yield {}
            finally:
                tg.cancel_scope.cancel()

    return Server(
        "docmunch",
        version=__version__,
        title="docmunch",
        description="Byte-exact documentation sections for agents: search, read, cite.",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        lifespan=lifespan,
    )


_T = TypeVar("_T")


async def _in_thread(work: Callable[[], _T], cancelled: threading.Event) -> _T:
    """``work()`` in a worker thread. When the call is cancelled (the client's
    ``notifications/cancelled``), ``cancelled`` is set, so that the work's next progress call
    raises :class:`~docmunch.errors.RunCancelled`; the call keeps its turn on its repo
    (:class:`~docmunch.serve._order.CallOrder`) until the thread has stopped, then ends cancelled."""
    finished = threading.Event()

    def run() -> _T:
        try:
            return work()
        finally:
            finished.set()

    try:
        return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        cancelled.set()
        with anyio.CancelScope(shield=True):  # the run stops at its next progress call
            await anyio.to_thread.run_sync(finished.wait)
        raise


async def _flush_tokens_periodically(tool_ctx: ToolContext) -> None:
    while True:
        await anyio.sleep(_FLUSH_INTERVAL_S)
        try:
            await anyio.to_thread.run_sync(tool_ctx.flush_tokens_saved)
        except Exception:
            logger.exception("could not persist tokens_saved")


def _progress_reporter(ctx: ServerRequestContext[Any], cancelled: threading.Event) -> ProgressFn:
    """A thread-side ``progress(done, total, message)`` sending throttled progress notifications.

    It is also where a long call hears that its client cancelled it: once ``cancelled`` is set
    (by ``call_tool`` when the SDK's dispatcher cancels the call on ``notifications/cancelled``)
    it raises :class:`~docmunch.errors.RunCancelled`, so an index run stops between two files or
    pages instead of running to its end for a client that no longer waits (the SDK sends no
    answer to a cancelled request, as the MCP specification asks).
    """
    last = [0.0]

    def progress(done: int, total: int, message: str) -> None:
        if cancelled.is_set():
            raise RunCancelled(
                f"cancelled by the client after {done} of {total}; what was written before stays, "
                "and the next run of the repo completes it",
                done=done,
                total=total,
            )
        now = time.monotonic()
        if done < total and now - last[0] < _PROGRESS_INTERVAL_S:
            return
        last[0] = now
        try:
            anyio.from_thread.run(ctx.session.report_progress, float(done), float(total), message)
        except Exception:  # the client went away or the loop is closing: indexing goes on
            logger.debug("progress notification not sent", exc_info=True)

    return progress
