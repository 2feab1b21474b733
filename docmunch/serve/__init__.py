"""``docmunch serve``: the MCP server over stdio (default) or streamable HTTP.

Public surface: :func:`run`. The tools, their schemas and the initialize ``instructions`` live
in ``_tools``; their implementations (thin calls into :class:`docmunch.index.Index`, the same
core the CLI uses) in ``_handlers``; the SDK server object in ``_server``; the transports in
``_stdio`` (wire hygiene) and ``_http`` (Origin/Host/token guard).

Environment:

- ``DOCMUNCH_HOME``: index root (as for every command).
- ``DOCMUNCH_LOG``: stderr log level, ``debug`` | ``info`` (default) | ``warning`` | ``error``;
  ``debug`` logs every JSON-RPC line in and out (to stderr, never stdout).
- ``DOCMUNCH_MAX_RESPONSE_BYTES``: response ceiling on each whole reply message (default 1 MiB).
- ``DOCMUNCH_TOKEN``: bearer token for HTTP (required for non-loopback binds).
- ``DOCMUNCH_ALLOWED_ORIGINS``: extra browser origins allowed over HTTP (comma-separated).
- ``DOCMUNCH_ALLOW_PRIVATE``: ``1`` lets ``index_url``/``extract_url`` reach private addresses
  (read by the fetcher; off by default; ``serve --allow-private`` does the same).
- ``DOCMUNCH_MCP_MESSAGE_MAX_BYTES`` / ``DOCMUNCH_MCP_JSON_MAX_DEPTH``: inbound message limits
  (``_jsonrpc``; 4 MiB, 64 levels).

More private modules: ``_jsonrpc`` checks every inbound message (size, depth, Unicode,
JSON-RPC shape) for both transports; ``_order`` keeps calls on one repo in arrival order;
``_negotiate`` does HTTP ``Accept`` negotiation and body bounds; ``_hints`` rewrites CLI hints
in error texts into what helps over MCP.
"""

from __future__ import annotations

import logging
import os
import sys

__all__ = ["run"]

logger = logging.getLogger("docmunch.serve")

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


def _configure_logging() -> None:
    level_name = os.environ.get("DOCMUNCH_LOG", "info").strip().lower() or "info"
    level = _LEVELS.get(level_name, logging.INFO)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    # Our own loggers at the chosen level; third-party ones (SDK, uvicorn, httpx) only from
    # warnings up unless debug was asked for.
    root.setLevel(level if level == logging.DEBUG else logging.WARNING)
    logging.getLogger("docmunch").setLevel(level)
    logging.captureWarnings(True)
    if level_name not in _LEVELS:
        logger.warning("DOCMUNCH_LOG=%r is not one of %s; using info", level_name, ", ".join(_LEVELS))


def _check_settings(http: str | None) -> None:
    """What can be known wrong before the first call, said at startup rather than on every call:
    a ``DOCMUNCH_HOME`` that is a file (an error: no call could succeed), an unreadable
    ``DOCMUNCH_MAX_RESPONSE_BYTES`` (a warning: the default is used), and over HTTP a ceiling above
    1 MiB (a warning: the MCP SDK's HTTP client refuses a server-sent event over 1 MiB, so larger
    results fail on that client).

    Raises:
        IndexStoreError: the home, or a folder above it, is a file.
    """
    from docmunch.index.connections import check_home, default_home
    from docmunch.serve._server import DEFAULT_MAX_RESPONSE_BYTES, max_response_bytes

    check_home(default_home())
    ceiling = max_response_bytes()  # logs its own warning when the value is not an integer
    raw = os.environ.get("DOCMUNCH_MAX_RESPONSE_BYTES", "").strip()
    if raw.lstrip("-").isdigit() and int(raw) < ceiling:
        logger.warning("DOCMUNCH_MAX_RESPONSE_BYTES=%s is below the least ceiling; using %d", raw, ceiling)
    if http is not None and ceiling > DEFAULT_MAX_RESPONSE_BYTES:
        logger.warning(
            "DOCMUNCH_MAX_RESPONSE_BYTES=%d is above 1 MiB: the MCP SDK's HTTP client refuses a "
            "server-sent event over 1 MiB, so results above that fail on it",
            ceiling,
        )


def run(*, http: str | None = None, allow_remote: bool = False, allow_private: bool = False) -> int:
    """Serve MCP until the client disconnects (stdio) or the process is signalled (HTTP).

    Args:
        http: ``"HOST:PORT"`` to serve streamable HTTP at ``http://HOST:PORT/mcp`` instead of
            stdio; port 0 picks a free port (logged on stderr).
        allow_remote: allow a non-loopback ``HOST`` (then ``DOCMUNCH_TOKEN`` is required).
        allow_private: let ``index_url``/``extract_url`` fetch private and loopback addresses
            (the same as ``DOCMUNCH_ALLOW_PRIVATE=1``; no tool argument can lift the guard).

    Returns:
        The process exit code: 0 after a clean shutdown, 1 on a startup error (message on
        stderr, e.g. a refused non-loopback bind).
    """
    claim = None
    if http is None:
        from docmunch.serve._stdio import claim_stdio

        for fd, name, code in ((0, "stdin", 0), (1, "stdout", 1)):
            try:
                os.fstat(fd)
            except OSError:  # e.g. started with `<&-`: no client can ever talk to us
                sys.stderr.write(f"docmunch serve: {name} is closed; nothing to serve over stdio\n")
                return code
        claim = claim_stdio()  # first: nothing imported later can write to the wire
    _configure_logging()

    import anyio

    from docmunch.errors import DocmunchError
    from docmunch.serve._context import ToolContext
    from docmunch.serve._order import CallOrder
    from docmunch.serve._server import build_server

    try:
        _check_settings(http)
    except DocmunchError as err:
        print(f"docmunch serve: error: {err}", file=sys.stderr)
        if claim is not None:
            claim.release()
        return 1
    tool_ctx = ToolContext(allow_private=allow_private)
    order = CallOrder()
    server = build_server(tool_ctx, order)
    try:
        if claim is not None:
            from docmunch.serve._stdio import stdio_transport

            async def main_stdio() -> None:
                async with stdio_transport(claim, order) as (read_stream, write_stream):
                    await server.run(read_stream, write_stream, server.create_initialization_options())

            anyio.run(main_stdio)
        else:
            from docmunch.serve._http import HttpOptions, serve_http

            options = HttpOptions.from_args(http or "", allow_remote=allow_remote)
            anyio.run(serve_http, server, options)
    except DocmunchError as err:
        print(f"docmunch serve: error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    finally:
        tool_ctx.close()
        if claim is not None:
            claim.release()
    return 0
