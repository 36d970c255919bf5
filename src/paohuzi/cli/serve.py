"""``paohuzi serve``: the multiplayer server and the web table."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "serve",
        help="play in the browser: start the server and open the printed URL",
        description="Start the multiplayer server with the web table on this machine.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", default="paohuzi.db", help="SQLite database (default paohuzi.db)")
    parser.add_argument(
        "--bot-delay", type=float, default=0.4, help="seconds a bot waits before moving (0.4)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from paohuzi.server.app import create_app
    except ImportError as error:
        print(
            f"paohuzi serve: error: {error.name} is missing; install the server extra: "
            "pip install 'paohuzi[server]'",
            file=sys.stderr,
        )
        return 2
    app = create_app(args.db, bot_delay=args.bot_delay)
    print(f"paohuzi: open http://{args.host}:{args.port}/ in a browser (Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
