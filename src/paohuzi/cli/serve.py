"""``paohuzi serve``: the multiplayer server and the web table."""

from __future__ import annotations

import argparse
import errno
import gc
import socket
import sys
from typing import Any


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "serve",
        help="play in the browser: start the server and open the printed URL",
        description="Start the multiplayer server with the web table on this machine. "
        "Limits and the security model: docs/security.md.",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: all networks)",
    )
    parser.add_argument(
        "--port", type=_port, default=8000, help="TCP port to listen on (default 8000)"
    )
    parser.add_argument(
        "--db",
        default="paohuzi.db",
        help="database of rooms and hands: a SQLite file (default: paohuzi.db in the current "
        "folder), or postgresql://… shared by a hall of server processes (docs/deploy.md)",
    )
    parser.add_argument(
        "--address",
        help="in a hall: the address the other processes reach this one at "
        "(default http://HOST:PORT)",
    )
    parser.add_argument(
        "--lease-ttl",
        type=float,
        default=3.0,
        metavar="SECONDS",
        help="in a hall: a process silent this long is taken for dead, its rooms taken over (3)",
    )
    parser.add_argument(
        "--log-json",
        action="store_true",
        help="log one JSON object a line (for a log collector) instead of plain text",
    )
    parser.add_argument(
        "--bot-delay", type=float, default=0.4, help="seconds a bot waits before moving (0.4)"
    )
    parser.add_argument(
        "--public-url",
        help="the address players reach the server at, e.g. https://paohuzi.example: invite "
        "links and the accepted WebSocket origin come from it (default http://HOST:PORT)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="another web origin allowed to open WebSockets (repeatable)",
    )
    parser.add_argument(
        "--operator-token",
        help="bearer token for /api/metrics and /api/admin/* (default: loopback clients only)",
    )
    parser.add_argument(
        "--bot-workers", type=int, default=1, help="processes for searching bots (1)"
    )
    parser.add_argument(
        "--offer-bots",
        metavar="LIST",
        help="the bots the lobby offers, comma-separated: a built-in name (expert@20) or "
        "NAME=SPEC with SPEC a built-in name, module:factory or cmd:PROGRAM; clients pick "
        "them by NAME (default: the built-in bots)",
    )
    parser.add_argument(
        "--review-workers",
        type=int,
        default=1,
        help="reviews run at once, each in a process at the lowest priority (1)",
    )
    parser.add_argument(
        "--review-limit",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="time one hand's review may take; it stops there with what it found (120)",
    )
    parser.add_argument(
        "--room-ttl",
        type=float,
        default=24.0,
        metavar="HOURS",
        help="close rooms idle this long; their finished hands stay readable (24)",
    )
    parser.add_argument("--max-rooms", type=int, default=2000, help="open rooms at once (2000)")
    parser.add_argument(
        "--rooms-per-minute",
        type=int,
        default=20,
        help="room creations per client address per minute (20)",
    )
    parser.add_argument(
        "--rooms-per-address",
        type=int,
        default=50,
        help="open rooms created from one client address (50)",
    )
    parser.add_argument(
        "--messages-per-address",
        type=float,
        default=200.0,
        help="WebSocket messages a second all connections of one client address may send (200)",
    )
    parser.add_argument(
        "--connections-per-minute",
        type=int,
        default=600,
        help="WebSocket connections one client address may open a minute (600)",
    )
    parser.add_argument(
        "--reads-per-minute",
        type=int,
        default=600,
        help="reads of rooms and their history per client address a minute (600)",
    )
    parser.add_argument(
        "--request-timeout",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="time a client has to send a whole HTTP request; a half-sent one is closed (5)",
    )
    parser.add_argument(
        "--refusal-delay",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="time a request over its budget waits, unread, for its 429 (1)",
    )
    parser.add_argument(
        "--no-ws-compression",
        action="store_true",
        help="send WebSocket messages uncompressed: compressing every state (permessage-deflate)"
        " takes about a third of the server's CPU; a state is a few KB",
    )
    parser.add_argument(
        "--dev-seeded-deals",
        action="store_true",
        help="DEVELOPMENT ONLY: accept a seed for a room's decks, which makes them predictable",
    )
    parser.set_defaults(run=run)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a number from 0 to 65535, not {text!r}")
    return port


def _unavailable(host: str, port: int) -> str | None:
    """Why the server cannot listen on ``host:port``, or None when it can: told in one line
    before the "open http://…" line, rather than as uvicorn's error after it."""
    error = _bind_error(host, port)
    if error is None:
        return None
    if isinstance(error, socket.gaierror):
        return f"cannot listen on {host!r}: {error.strerror}; choose another --host"
    if error.errno != errno.EADDRINUSE:
        return f"cannot listen on {host} port {port}: {error.strerror}; check --host and --port"
    taken = f"port {port} on {host} is taken by another program; choose another with --port"
    nearby = range(port + 1, min(port + 20, 65536))
    free = next((p for p in nearby if _bind_error(host, p) is None), None)
    return taken if free is None else f"{taken}, e.g. --port {free} (free now)"


def _bind_error(host: str, port: int) -> OSError | None:
    """Bind ``host:port`` as uvicorn (asyncio's ``create_server``) will, and let go at once."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        return error
    for family, kind, proto, _, address in set(infos):
        try:
            sock = socket.socket(family, kind, proto)
        except OSError:
            continue  # a family this machine lacks: asyncio skips it too
        with sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as error:
                return error
    return None


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from paohuzi.server.app import create_app
        from paohuzi.server.config import Config, parse_offered
        from paohuzi.server.guard import protocols
    except ImportError as error:
        print(
            f"paohuzi serve: error: {error.name} is missing; install the server extra: "
            "pip install 'paohuzi[server]'",
            file=sys.stderr,
        )
        return 2
    if not 0 <= args.refusal_delay <= 60:  # NaN too
        print("paohuzi serve: error: --refusal-delay is 0 to 60 seconds", file=sys.stderr)
        return 2
    problem = _unavailable(args.host, args.port)
    if problem is not None:
        print(f"paohuzi serve: error: {problem}", file=sys.stderr)
        return 2
    public_url = args.public_url or f"http://{args.host}:{args.port}"
    try:
        offered = parse_offered(args.offer_bots) if args.offer_bots is not None else None
    except ValueError as error:
        print(f"paohuzi serve: error: --offer-bots: {error}", file=sys.stderr)
        return 2
    if args.log_json:
        from paohuzi.server.logs import log_json

        log_json()
    config = Config(
        offered_bots=offered,
        db=args.db,
        address=args.address or f"http://{args.host}:{args.port}",
        lease_ttl=args.lease_ttl,
        public_url=public_url,
        allow_origins=tuple(args.allow_origin),
        operator_token=args.operator_token,
        dev_seeded_deals=args.dev_seeded_deals,
        bot_delay=args.bot_delay,
        bot_workers=max(1, args.bot_workers),
        room_ttl=args.room_ttl * 3600,
        max_rooms=args.max_rooms,
        rooms_per_minute=args.rooms_per_minute,
        rooms_per_address=args.rooms_per_address,
        review_workers=max(1, args.review_workers),
        review_limit=args.review_limit,
        messages_per_address=args.messages_per_address,
        connections_per_minute=args.connections_per_minute,
        reads_per_minute=args.reads_per_minute,
        request_timeout=args.request_timeout,
        refusal_delay=args.refusal_delay,
    )
    app = create_app(config)
    http, ws = protocols(config)
    tune_collector()
    if args.dev_seeded_deals:
        print("paohuzi: seeded deals are on: never use this server in public", file=sys.stderr)
    print(f"paohuzi: open {public_url}/ in a browser (Ctrl-C stops)", flush=True)
    uvicorn.run(
        app,
        log_config=None if args.log_json else uvicorn.config.LOGGING_CONFIG,
        host=args.host,
        port=args.port,
        log_level="warning",
        http=http,
        ws=ws,
        ws_max_size=65536,
        ws_per_message_deflate=not args.no_ws_compression,
        h11_max_incomplete_event_size=16384,
    )
    return 0


COLLECTOR_THRESHOLDS = (20_000, 20, 100)
"""The serving process's collector thresholds (D82); Python's defaults are (700, 10, 10)."""


def tune_collector() -> None:
    """Collect rarely and never scan what start-up made (D82). A server's heap is large (about
    150,000 tracked objects with 300 rooms, 400,000 with 500 tables of people) and a full
    collection, which scans all of it, stopped every table for 0.1–0.6 s several times a
    minute; connections that come and go (a reconnecting flood) made them more frequent. With
    the modules, the app and the rules frozen and young collections every 20,000 objects, no
    full collection ran in a 20 s run of ``benchmarks/abuse.py``; cycles are still collected."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
