"""A hall of two server processes on one PostgreSQL (issue 16): rooms spread over both, one
killed with SIGKILL mid-hand, every room goes on in the other from its stored log (D60–D62)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import psycopg
import pytest

from paohuzi.engine.record import Record, replay
from paohuzi.server.store import (
    PG_MIGRATIONS,
    LeaseLost,
    PlayedHand,
    RatedMatch,
    StoredHand,
    StoredRoom,
    StoreError,
    Write,
    open_store,
)
from tests import clock
from tests.pgcluster import db_url, on_postgres
from tests.server.conftest import free_port
from tests.server.faults_player import Player
from tests.server.harness import PERSON, LoggedServer, RawWebSocket, hello, sql, ws_path

pytestmark = [
    pytest.mark.skipif(not on_postgres(), reason="a hall shares a PostgreSQL"),
    pytest.mark.xdist_group("hall"),
]

ROOMS = 6
HANDS = 2
"""Hands each room finishes; the kill falls in the first."""


NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


class Nginx:
    """nginx with deploy/nginx.conf's routing (its map and upstream, TLS left out) in front of
    the given processes, on a free loopback port; ``http``: more directives of its http block."""

    def __init__(self, folder: Path, ports: list[int], http: str = "") -> None:
        deploy = (Path(__file__).parents[2] / "deploy" / "nginx.conf").read_text()
        routing = deploy[: deploy.index("server {")]
        lines = [f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;" for p in ports]
        upstream = [line for line in routing.splitlines() if "server 127.0.0.1:" not in line]
        at = next(i for i, line in enumerate(upstream) if "hash $paohuzi_room" in line)
        routing = "\n".join(upstream[: at + 1] + lines + upstream[at + 1 :])
        self.port = free_port()
        self.folder = folder
        (folder / "logs").mkdir(parents=True, exist_ok=True)
        (folder / "nginx.conf").write_text(
            f"daemon off; pid {folder}/nginx.pid; error_log {folder}/logs/error.log;\n"
            "events {}\n"
            f"http {{ client_body_temp_path {folder}; proxy_temp_path {folder}; {http}\n"
            f"{routing}\n"
            f"server {{ listen 127.0.0.1:{self.port};"
            f" access_log {folder}/logs/access.log paohuzi;"
            " location / { proxy_pass http://paohuzi;"
            " proxy_http_version 1.1; proxy_set_header Upgrade $http_upgrade;"
            " proxy_set_header Connection $connection_upgrade;"
            ' proxy_set_header X-Paohuzi-Forwarded "";'
            " proxy_next_upstream error timeout http_502 http_503; } } }\n"
        )
        self.process = subprocess.Popen(
            [NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = clock.deadline()
        while True:
            try:
                urllib.request.urlopen(self.url + "/healthz", timeout=1).read()
                return
            except OSError:
                assert not clock.expired(deadline), "nginx did not start"
                time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def post(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            self.url + path, json.dumps(body).encode(), {"Content-Type": "application/json"}
        )
        return json.load(urllib.request.urlopen(request, timeout=clock.PATIENCE))

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


@pytest.mark.parametrize("front", ["direct", "nginx"])
def test_kill_9_of_one_process_every_room_goes_on_in_the_other(tmp_path: Path, front: str) -> None:
    if front == "nginx" and not Path(NGINX).exists():
        pytest.skip("nginx is not installed (scripts/test installs it)")
    db = tmp_path / "hall"
    options = ("--dev-seeded-deals", "--lease-ttl", "1.5")
    first, second = LoggedServer(db, *options), LoggedServer(db, *options)
    first.start()
    second.start()
    proxy: Nginx | None = None
    try:
        if front == "nginx":
            proxy = Nginx(tmp_path / "nginx", [first.port, second.port])
        if proxy is not None:
            # Rooms made through nginx land on either process (a random key for POSTs); the
            # clients reach them through it (the hash of the room id), before and after.
            made: list[dict[str, Any]] = []
            while len(made) < ROOMS or sql(db, "SELECT count(DISTINCT owner) FROM leases") != [
                (2,)
            ]:
                assert len(made) < 30, "nginx sent every new room to one process"
                made.append(
                    proxy.post("/api/rooms", {"bots": PERSON, "timer": 0, "seed": 100 + len(made)})
                )
            ws_base = proxy.url.replace("http", "ws", 1)
            urls = [ws_base + ws_path(room) for room in made]
            after = urls
        else:
            made = [
                (first if i % 2 == 0 else second).post(
                    "/api/rooms", {"bots": PERSON, "timer": 0, "seed": 100 + i}
                )
                for i in range(ROOMS)
            ]
            # Rooms are held by the process that made them; a third of the clients reach each
            # room through the other (as a front proxy's hash may send them): forwarded.
            urls = [
                (first if i % 3 == 0 else second).ws(ws_path(room)) for i, room in enumerate(made)
            ]
            after = [second.ws(ws_path(room)) for room in made]
        owners = sql(db, "SELECT count(DISTINCT owner) FROM leases")
        assert owners == [(2,)], owners
        players = [Player(url, hello(room, 0)) for url, room in zip(urls, made, strict=True)]
        count = len(players)
        done: list[BaseException | None] = [None] * count

        def play(i: int) -> None:
            player = players[i]
            progress = clock.Progress()  # a stall is no move for the patience
            try:
                while True:
                    progress.check(player.last.get("seq"), "the room did not go on")
                    if player.play(finish=True, hand=HANDS):
                        return
                    # The connection broke: reconnect, to the process that lives.
                    player.url = after[i]
                    time.sleep(0.1)
            except BaseException as error:
                done[i] = error

        # Every room is held in the middle of a hand for the kill: its player waits with a
        # choice to make after three actions acknowledged (left to run, the rooms drift apart
        # on a loaded machine and some had finished their hands when the slowest got there).
        gate = threading.Event()
        for player in players:
            player.gate, player.hold_after = gate, 3
        threads = [threading.Thread(target=play, args=(i,)) for i in range(count)]
        for thread in threads:
            thread.start()
        deadline = clock.deadline()
        while not all(p.held for p in players):
            assert not clock.expired(deadline), "the rooms did not start"
            assert done == [None] * count, done
            time.sleep(0.02)
        assert first.process is not None
        os.kill(first.process.pid, signal.SIGKILL)
        first.process.wait()
        killed_mid_hand = [bool(p.last["legal"]) and not p.last["over"] for p in players]
        gate.set()
        for thread in threads:
            thread.join(90)
        assert done == [None] * count, done
        assert all(killed_mid_hand), killed_mid_hand
        owners = sql(db, "SELECT count(DISTINCT owner) FROM leases")
        assert owners == [(1,)], owners  # every room is the survivor's now
        for room, player in zip(made, players, strict=True):
            for n in range(player.last["hand_no"]):
                record = second.get(f"/api/rooms/{room['room']}/hands/{n}/record")
                again = replay(Record.from_json(record))
                assert again.error is None and again.status == "finished", (n, again.error)
                # Every action of seat 0 the hall applied, and nothing else, once each.
                mine = [a.removeprefix("0 ") for a in record["actions"] if a.startswith("0 ")]
                assert mine == player.applied.get(n + 1, []), (room["room"], n)
        assert "Traceback" not in second.errors(), second.errors()[-3000:]
    finally:
        if proxy is not None:
            proxy.stop()
        first.stop()
        second.stop()


def _room(room_id: str) -> StoredRoom:
    return StoredRoom(room_id, 1.0, "hunan", None, 0, [{"token": "t"}], 0, [0, 0, 0], 0, 0)


def test_a_stale_holder_can_never_write_after_another_took_its_room(tmp_path: Path) -> None:
    url = db_url(tmp_path / "fence")
    # A lease of 2 s: the holder must still be alive for the claim just after its heartbeat,
    # on a loaded machine too (a lease of 0.5 s could lapse between two statements there).
    old = open_store(url, address="http://old", lease_ttl=2.0)
    new = open_store(url, address="http://new", lease_ttl=2.0)
    try:
        assert old.create_room(_room("r"), StoredHand(0, 0, "x1", [], None, "s", "c"))
        old.add_action("r", 0, 0, "0 discard x1")
        assert old.heartbeat() == {"r"}
        assert new.claim("r") == "http://old"  # its holder lives: the room is not taken
        time.sleep(2.2)  # no heartbeat from the old holder: taken for dead
        assert new.claim("r") is True
        with pytest.raises(LeaseLost):
            old.add_action("r", 0, 1, "1 pass")
        with pytest.raises(LeaseLost):
            old.set_state("r", "closed")
        assert old.heartbeat() == set()  # it learns it lost the room
        hand = new.last_hand("r")
        assert hand is not None and hand.actions == ["0 discard x1"]
        new.add_action("r", 0, 1, "1 pass")
        assert new.heartbeat() == {"r"}
        assert old.claim("r") == "http://new"  # the new holder lives
    finally:
        old.close()
        new.close()


def test_a_process_that_lost_its_room_still_keeps_the_hands_it_finished(tmp_path: Path) -> None:
    """A finished hand's facts for its players and its match's rating (D173) are not fenced
    by the lease: the process that finished the hand may store them after another took the
    room (whose restore keeps only the room's last hand), once."""
    url = db_url(tmp_path / "standing")
    old = open_store(url, address="http://old", lease_ttl=2.0)
    new = open_store(url, address="http://new", lease_ttl=2.0)
    try:
        assert old.create_room(_room("r"), StoredHand(0, 0, "x1", [], None, "s", "c"))
        assert old.heartbeat() == {"r"}
        time.sleep(2.2)  # no heartbeat from the old holder: taken for dead
        assert new.claim("r") is True
        hand = PlayedHand("p1", 0, 12, 21, True, ())
        kept, refused = old.apply_writes(
            [Write("hand_played", "r", (0, "hunan", [hand])), Write("set_state", "r", ("closed",))]
        )
        assert kept is None and isinstance(refused, LeaseLost)
        assert old.hand_played("r", 0, "hunan", [hand]) == 0  # kept once
        assert old.rate_match(
            "r", RatedMatch(1, "hunan", ("p1", None), (None, "greedy"), (5, -5), 1)
        )
        found = new.profile("p1", 10, 10)
        assert found is not None
        (hunan,) = found["families"]
        assert (hunan["hands"], hunan["matches"]) == (1, 1)
    finally:
        old.close()
        new.close()


def test_a_batch_of_actions_is_fenced_and_stored_once(tmp_path: Path) -> None:
    """The writer's batch of actions (one statement on PostgreSQL, D74): a room taken by
    another process is refused whole, an action tried again after its commit is stored once,
    another action at a taken place is refused, and the rest of the batch is stored."""
    url = db_url(tmp_path / "batch")
    old = open_store(url, address="http://old", lease_ttl=0.5)
    new = open_store(url, address="http://new", lease_ttl=0.5)
    try:
        for room in ("a", "b"):
            assert old.create_room(_room(room), StoredHand(0, 0, "x1", [], None, "s", "c"))
        assert old.apply_writes([Write("add_action", r, (0, 0, "0 discard x1")) for r in "ab"]) == [
            None,
            None,
        ]
        time.sleep(0.7)  # no heartbeat from the old holder: taken for dead
        assert new.claim("b") is True
        again, taken, later = old.apply_writes(
            [
                Write("add_action", "a", (0, 0, "0 discard x1")),  # its answer was lost
                Write("add_action", "b", (0, 1, "1 pass")),
                Write("add_action", "a", (0, 1, "1 pass")),
            ]
        )
        assert again is None and later is None
        assert isinstance(taken, LeaseLost)
        other, last = old.apply_writes(
            [
                Write("add_action", "a", (0, 1, "1 peng")),
                Write("add_action", "a", (0, 2, "2 pass")),
            ]
        )
        assert isinstance(other, StoreError) and not isinstance(other, LeaseLost)
        assert last is None
        assert sql(tmp_path / "batch", "SELECT room, i, action FROM actions ORDER BY room, i") == [
            ("a", 0, "0 discard x1"),
            ("a", 1, "1 pass"),
            ("a", 2, "2 pass"),
            ("b", 0, "0 discard x1"),
        ]
    finally:
        old.close()
        new.close()


def test_a_database_of_the_first_postgresql_schema_is_migrated_in_place(tmp_path: Path) -> None:
    url = db_url(tmp_path / "old")
    with psycopg.connect(url, autocommit=True) as pg:
        pg.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        pg.execute("INSERT INTO schema_version VALUES (1)")
        for statement in filter(str.strip, PG_MIGRATIONS[0].split(";")):
            pg.execute(statement)
        pg.execute(
            "INSERT INTO rooms (id, created, rules, seed, timer, seats, dealer, totals, hands,"
            " streak) VALUES ('old', 1, 'hunan', 0, 0, '[]', 0, '[0,0,0]', 0, 0)"
        )
    store = open_store(url, address="http://here")
    try:
        assert sql(tmp_path / "old", "SELECT version FROM schema_version") == [
            (len(PG_MIGRATIONS),)
        ]
        assert store.orphans(10) == ["old"]  # no lease yet: any process may take it
        assert store.claim("old") is True
    finally:
        store.close()


def test_nginx_logs_no_secret_of_any_request(tmp_path: Path) -> None:
    """deploy/nginx.conf's access log format writes no query string (an older invite's
    ?token=) and no Referer; today's links carry the secret where no request does."""
    if not Path(NGINX).exists():
        pytest.skip("nginx is not installed (scripts/test installs it)")
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    server = LoggedServer(tmp_path / "db")
    server.start()
    proxy: Nginx | None = None
    try:
        proxy = Nginx(tmp_path / "nginx", [server.port])
        room = proxy.post("/api/rooms", {"bots": PERSON, "timer": 0})
        secret = room["seats"][0]["token"]
        assert "#token=" in room["seats"][0]["url"] and "?" not in room["seats"][0]["url"]
        base = proxy.url.replace("http", "ws", 1)
        with connect(f"{base}/ws/{room['room']}") as ws:  # today's: the secret in a message
            ws.send(json.dumps({"type": "hello", "token": secret}))
            assert json.loads(ws.recv(timeout=clock.PATIENCE))["you"] == 0
        with connect(f"{base}/ws/{room['room']}?token={secret}") as ws:  # refused (D109)
            assert json.loads(ws.recv(timeout=clock.PATIENCE))["type"] == "error"
            with pytest.raises(ConnectionClosed) as refused:
                ws.recv(timeout=clock.PATIENCE)
            assert refused.value.rcvd is not None and refused.value.rcvd.code == 4400
        request = urllib.request.Request(
            f"{proxy.url}/room/{room['room']}?token={secret}",
            headers={"Referer": f"{proxy.url}/room/{room['room']}?token={secret}"},
        )
        urllib.request.urlopen(request, timeout=clock.PATIENCE).read()
    finally:
        if proxy is not None:
            proxy.stop()
        server.stop()
    log = (tmp_path / "nginx" / "logs" / "access.log").read_text()
    assert f"/ws/{room['room']}" in log and f"/room/{room['room']}" in log
    assert secret not in log and "token" not in log


def test_nginx_refuses_a_reconnecting_flood_before_the_server(tmp_path: Path) -> None:
    """deploy/nginx.conf budgets WebSocket upgrades per address (100 at once, 10 a second):
    150 upgrades at once get 429s from nginx, while the server's own budget (600) is far off;
    plain requests are not counted. Counting, not timing: the loop takes far less than the
    ten seconds that would refill 100 tokens."""
    if not Path(NGINX).exists():
        pytest.skip("nginx is not installed (scripts/test installs it)")
    server = LoggedServer(tmp_path / "db")
    server.start()
    proxy: Nginx | None = None
    try:
        proxy = Nginx(tmp_path / "nginx", [server.port])
        statuses = []
        for _ in range(150):
            ws = RawWebSocket(proxy.port, "/ws/nosuchroom0")
            statuses.append(ws.status)
            ws.close()
        for _ in range(20):  # plain requests pass whatever the upgrades spent
            urllib.request.urlopen(proxy.url + "/healthz", timeout=clock.PATIENCE).read()
    finally:
        if proxy is not None:
            proxy.stop()
        server.stop()
    assert statuses.count(429) >= 30, statuses
    assert statuses.count(101) >= 100, statuses
    assert "Traceback" not in server.errors()


def test_nginx_passes_the_static_files_compression_and_caching_through(tmp_path: Path) -> None:
    """The web table's files through deploy/nginx.conf's routing, with the gzip of Debian's
    nginx.conf on (and the types it suggests): gzipped once, by the server, with its ETag,
    answered 304 when current, the fonts kept a year (D114)."""
    if not Path(NGINX).exists():
        pytest.skip("nginx is not installed (scripts/test installs it)")
    debian = "gzip on; gzip_proxied any; gzip_types text/css text/javascript application/json;"

    def get(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(url, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=clock.PATIENCE) as response:
                found = {k.lower(): v for k, v in response.headers.items()}
                return response.status, found, response.read()
        except urllib.error.HTTPError as answer:  # a 304
            return answer.code, {k.lower(): v for k, v in answer.headers.items()}, answer.read()

    server = LoggedServer(tmp_path / "db")
    server.start()
    proxy: Nginx | None = None
    try:
        proxy = Nginx(tmp_path / "nginx", [server.port], http=debian)
        html = get(server.url + "/")[2].decode()
        font = next(h for h in html.split('"') if h.startswith("/static/fonts/zi-ui-00."))
        for path in ("/", "/static/app.js", "/static/style.css", "/static/fonts.css"):
            _, direct, body = get(server.url + path, **{"Accept-Encoding": "gzip"})
            status, through, same = get(proxy.url + path, **{"Accept-Encoding": "gzip"})
            assert status == 200 and same == body, path
            assert through["content-encoding"] == "gzip" and through["etag"] == direct["etag"]
            assert through["cache-control"] == "no-cache" and "content-security-policy" in through
            status, _, empty = get(
                proxy.url + path, **{"Accept-Encoding": "gzip", "If-None-Match": through["etag"]}
            )
            assert (status, empty) == (304, b""), path
            _, plain, whole = get(proxy.url + path)
            assert "content-encoding" not in plain and len(whole) > len(body), path
        status, through, _ = get(proxy.url + font, **{"Accept-Encoding": "gzip"})
        assert status == 200 and "content-encoding" not in through
        assert through["cache-control"] == "public, max-age=31536000, immutable"
    finally:
        if proxy is not None:
            proxy.stop()
        server.stop()
    assert "Traceback" not in server.errors()
