"""The store as the event loop sees it: every database call off the loop, with a deadline.

Writes of rooms go to one writer — a thread for SQLite, a task in the event loop over
psycopg's ``AsyncConnection`` for PostgreSQL (:class:`LoopWriter`, D76) — which commits
whatever is queued in one transaction (group commit: one commit for the actions of many
rooms, as soon as the previous commit returned) and answers each write when its transaction
has committed, the whole batch in one callback of the event loop. A room awaits its write
under its lock before it applies and shows anything, so each room keeps its order and
"durable before visible" (docs/security.md) holds while the rooms' commits are shared.

A write that fails for a reason that stays (a full disk) is refused to whoever asked; one that
may succeed if tried again (a lock another connection holds, a stalled or restarted database,
a broken connection) is kept and tried again until it is stored: the room waits, tells its
clients that saving is delayed, and goes on by itself when the database answers again. Reads
(history, restoring a room) and the hall's leases run in threads of their own, each awaited
with a deadline: a stalled database makes them fail in seconds, never the event loop wait.

In a hall the lease of this process's rooms lasts ``lease_ttl`` from its last heartbeat; when
the heartbeat could not be renewed for most of that time, the writer holds back every write
(the process stops acting on its rooms) until a heartbeat succeeds again, so nothing is
written by a process that may have lost its rooms, even before the database's fencing (D60).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import sys
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, TypeVar

from paohuzi.server.store import (
    ACTIONS_AT_ONCE,
    PG_OPTIONS,
    PostgresStore,
    Store,
    StoreError,
    Write,
)

log = logging.getLogger("paohuzi.server")
T = TypeVar("T")

READ_DEADLINE = 5.0
"""Seconds a read (a room's restore, history) may take before it is given up (503)."""
PING_DEADLINE = 1.5
"""Seconds the readiness probe waits for the database."""
LOCK_WAIT = 1.0
"""Seconds the SQLite writer waits for a lock another connection holds, at each try."""
STALLED = 1.0
"""A write waiting longer than this: the database is stalled (readiness says so)."""
BATCH = 1000
"""Most writes committed in one transaction."""
SWITCH = 0.0005
"""The interpreter's thread switch interval while a writer thread runs (seconds)."""
TRY_DEADLINE = 10.0
"""Seconds one try of PostgreSQL's batch may take before its connection is dropped and the
batch tried again on a new one (a statement tried again stores nothing twice)."""
LEASE_SHARE = 0.8
"""Share of the lease's time after the last renewed heartbeat during which the process still
acts on its rooms: it stops a little before the lease ends for the others."""


@dataclass
class _Pending:
    write: Write
    future: concurrent.futures.Future[Any]
    """The writer's side: started (then it runs to its end) or cancelled before it started."""
    waiter: asyncio.Future[Any]
    """The event loop's side, awaited by whoever wrote: resolved in the loop, the whole
    batch's waiters by one callback (each hop between the threads costs a turn of a busy
    loop, so there is one)."""
    loop: asyncio.AbstractEventLoop
    queued: float = field(default_factory=time.monotonic)
    outcome: tuple[StoreError | None, Any] | None = None


def _resolve(answered: list[_Pending]) -> None:
    """In the event loop: answer each write's waiter (unless it gave up waiting)."""
    for pending in answered:
        if pending.waiter.done() or pending.outcome is None:
            continue
        error, result = pending.outcome
        if error is None:
            pending.waiter.set_result(result)
        else:
            pending.waiter.set_exception(error)


class Database:
    """The async face of a :class:`Store` for the server (see the module's text)."""

    def __init__(self, store: Store, *, readers: int = 2) -> None:
        self.store = store
        self.hall = store.hall
        self.lease_ttl: float = getattr(store, "lease_ttl", 3.0)
        self.renewed = time.monotonic()
        """When the last heartbeat that renewed this process's leases started."""
        self._queue: queue.SimpleQueue[_Pending | None] = queue.SimpleQueue()
        self._waiting: dict[int, float] = {}
        self._waiting_lock = threading.Lock()
        self._stopping = False
        store.writer_deadline(LOCK_WAIT)
        # The writer thread takes the GIL back after each statement's network wait; with the
        # event loop busy it would wait a whole switch interval (5 ms) each time, several
        # times a commit (a convoy). A shorter interval hands it over sooner.
        if sys.getswitchinterval() > SWITCH:
            sys.setswitchinterval(SWITCH)
        self._readers = concurrent.futures.ThreadPoolExecutor(
            readers, "paohuzi-db-read", initializer=store.open_thread
        )
        self._leases = concurrent.futures.ThreadPoolExecutor(
            1, "paohuzi-db-lease", initializer=store.open_thread
        )
        self._hall = concurrent.futures.ThreadPoolExecutor(
            2, "paohuzi-db-hall", initializer=store.open_thread
        )
        """Players, blocks, the quick-play queue and the open tables (issue 25): threads of
        their own, so a burst of them never holds up a room's restore."""
        self._answered: list[_Pending] = []
        """Writes the writer has answered, not yet handed to their loops."""
        self._in_loop: LoopWriter | None = None
        if isinstance(store, PostgresStore):
            self._in_loop = LoopWriter(self, store)
        else:
            self._writer = threading.Thread(target=self._write_loop, name="paohuzi-db-write")
            self._writer.daemon = True
            self._writer.start()
        self._beat: asyncio.Future[set[str] | None] | None = None
        self._beating = False
        self.commits = 0
        """Transactions the writer committed (for the benchmarks)."""
        self.written = 0
        """Writes they held."""

    # ------------------------------------------------------------------ state

    def lease_ok(self) -> bool:
        """Whether this process may act on its rooms: its leases were renewed recently (once
        it keeps them by a heartbeat at all: a tool or a test that sends none is held back
        by nothing but the database's fencing)."""
        if not self.hall or not self._beating:
            return True
        return time.monotonic() < self.renewed + LEASE_SHARE * self.lease_ttl

    def stalled(self) -> float:
        """Seconds the oldest write not yet committed has waited (0: none waits)."""
        with self._waiting_lock:
            oldest = min(self._waiting.values(), default=None)
        return 0.0 if oldest is None else time.monotonic() - oldest

    # ------------------------------------------------------------------ writes

    async def write(self, kind: str, room: str, *args: Any, deadline: float | None = None) -> Any:
        """Store one write of ``room`` (a :class:`Store` method's name and arguments after the
        room id; ``create_room`` is committed alone); returns once it is committed, what the
        method returns. Raises :class:`StoreError` when it cannot be
        stored (nothing of it was), or, with ``deadline``, when it was not stored by then
        (it is dropped if it had not started; else it may still be stored)."""
        loop = asyncio.get_running_loop()
        pending = _Pending(
            Write(kind, room, args), concurrent.futures.Future(), loop.create_future(), loop
        )
        with self._waiting_lock:
            self._waiting[id(pending)] = pending.queued
        if self._in_loop is not None:
            self._in_loop.put(pending)
        else:
            self._queue.put(pending)
        if deadline is None:
            return await pending.waiter
        # On time out the waiter is cancelled, and the write with it if it had not started.
        pending.waiter.add_done_callback(lambda w: w.cancelled() and pending.future.cancel())
        try:
            return await asyncio.wait_for(pending.waiter, deadline)
        except TimeoutError:
            raise StoreError(f"the database did not answer within {deadline:g} s") from None

    def _write_loop(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < BATCH:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._queue.put(None)  # stop after this batch
                    break
                batch.append(more)
            started = [p for p in batch if p.future.set_running_or_notify_cancel()]
            try:
                self._write_batch(batch, started)
            finally:
                self._answer()

    def _write_batch(self, batch: list[_Pending], started: list[_Pending]) -> None:
        for p in batch:
            if p not in started:
                self._done(p)
        grouped = [p for p in started if p.write.kind != "create_room"]
        if grouped:
            self._commit(grouped)
        for p in started:
            if p.write.kind == "create_room":
                self._alone(p)

    def _done(self, pending: _Pending) -> None:
        with self._waiting_lock:
            self._waiting.pop(id(pending), None)

    def _hold_back(self) -> None:
        """Wait (in the writer thread) while this process may not act on its rooms."""
        told = False
        while not self.lease_ok() and not self._stopping:
            if not told:
                log.warning("hall: the leases were not renewed in time; writes wait")
                told = True
            time.sleep(0.05)

    def _commit(self, batch: list[_Pending]) -> None:
        """Commit the batch in one transaction, trying again while the failure is transient;
        a failure that stays is found out write by write."""
        tries = 0
        while True:
            self._hold_back()
            try:
                results = self.store.apply_writes([p.write for p in batch])
            except StoreError as error:
                if self.store.transient(error) and not self._stopping:
                    tries = self._again(tries, error)
                    continue
                for p in batch:
                    self._alone(p)
                return
            except Exception as error:  # a bug: refuse the writes, keep the writer alive
                log.exception("the writer failed")
                for p in batch:
                    self._finish(p, StoreError(f"{type(error).__name__}: {error}"))
                return
            self.commits += 1
            self.written += len(batch)
            for p, result in zip(batch, results, strict=True):
                self._finish(p, result)
            return

    def _alone(self, pending: _Pending) -> None:
        tries = 0
        while True:
            self._hold_back()
            try:
                result = self.store.apply_write(pending.write)
            except StoreError as error:
                if self.store.transient(error) and not self._stopping:
                    tries = self._again(tries, error)
                    continue
                self._finish(pending, error)
                return
            except Exception as error:
                log.exception("the writer failed")
                self._finish(pending, StoreError(f"{type(error).__name__}: {error}"))
                return
            self.commits += 1
            self.written += 1
            self._finish(pending, None, result)
            return

    def _again(self, tries: int, error: StoreError) -> int:
        if tries == 0:
            log.warning("the database is stalled; writes are kept and tried again: %s", error)
        time.sleep(min(0.05 * 2**tries, 0.5))
        return tries + 1

    def _finish(self, pending: _Pending, error: StoreError | None, result: Any = None) -> None:
        self._done(pending)
        pending.outcome = (error, result)
        self._answered.append(pending)

    def _answer(self) -> None:
        """Hand the writes answered since the last call to their event loops, one callback
        for each loop."""
        answered, self._answered = self._answered, []
        loops: dict[asyncio.AbstractEventLoop, list[_Pending]] = {}
        for pending in answered:
            loops.setdefault(pending.loop, []).append(pending)
        for loop, some in loops.items():
            with suppress(RuntimeError):  # the loop is closed: nobody waits any more
                loop.call_soon_threadsafe(_resolve, some)

    # ------------------------------------------------------------------ reads and leases

    async def read(self, work: Callable[..., T], *args: Any, deadline: float = READ_DEADLINE) -> T:
        """``work(*args)`` (a :class:`Store` method) in a reader thread; raises
        :class:`StoreError` when it fails or takes longer than ``deadline``."""
        return await self._call(self._readers, work, args, deadline)

    async def call(self, work: Callable[..., T], *args: Any, deadline: float = READ_DEADLINE) -> T:
        """``work(*args)`` (a function of the hall's tables, given the store) in a thread of
        the hall's, which may read and write; raises :class:`StoreError` as :meth:`read`."""
        return await self._call(self._hall, work, args, deadline)

    async def lease(self, work: Callable[..., T], *args: Any, deadline: float = READ_DEADLINE) -> T:
        """A lease call (claim, heartbeat, orphans, release) in the hall's own thread."""
        return await self._call(self._leases, work, args, deadline)

    async def _call(
        self,
        pool: concurrent.futures.ThreadPoolExecutor,
        work: Callable[..., T],
        args: tuple[Any, ...],
        deadline: float,
    ) -> T:
        loop = asyncio.get_running_loop()
        try:
            return await asyncio.wait_for(loop.run_in_executor(pool, work, *args), deadline)
        except TimeoutError:
            raise StoreError(f"the database did not answer within {deadline:g} s") from None

    async def ping(self) -> None:
        """Raise :class:`StoreError` unless the database answers, and writes go through,
        within the probe's deadline."""
        waited = self.stalled()
        if waited > STALLED:
            raise StoreError(f"a write has waited {waited:.1f} s")
        if not self.lease_ok():
            raise StoreError("the leases were not renewed in time")
        await self.read(self.store.ping, deadline=PING_DEADLINE)

    async def heartbeat(self) -> set[str] | None:
        """Renew this process's leases: the rooms it still holds (None: all it had)."""
        if self._beat is not None and not self._beat.done():
            raise StoreError("the last heartbeat has not returned yet")  # not queued twice
        self._beating = True
        started = time.monotonic()
        loop = asyncio.get_running_loop()
        self._beat = loop.run_in_executor(self._leases, self.store.heartbeat)
        try:
            held = await asyncio.wait_for(asyncio.shield(self._beat), self.lease_ttl / 2)
        except TimeoutError:
            raise StoreError("the heartbeat did not return in time") from None
        self.renewed = started
        return held

    async def claim(self, room: str) -> bool | str:
        if not self.hall:
            return True
        return await self.lease(self.store.claim, room)

    async def release(self, room: str) -> None:
        if self.hall:
            await self.lease(self.store.release, room)

    async def orphans(self, limit: int) -> list[str]:
        if not self.hall:
            return []
        return await self.lease(self.store.orphans, limit)

    def close(self, timeout: float = 10.0) -> None:
        """Commit what is queued (for at most ``timeout``), then stop the threads."""
        end = time.monotonic() + timeout
        if self._in_loop is not None:
            self._in_loop.close()
        else:
            self._queue.put(None)
            self._writer.join(timeout)
        self._stopping = True
        pools = (self._readers, self._leases, self._hall)
        for pool in pools:
            pool.shutdown(wait=False, cancel_futures=True)
        # A read still running uses its thread's connection: the store closes the connections
        # next, and SQLite's would be freed under the running statement (a segfault, seen on a
        # loaded CI run when a test's server stopped during restore_all). Each try of a read
        # has a deadline of its own, so this wait is bounded.
        for pool in pools:
            for thread in list(pool._threads):
                thread.join(max(0.0, end - time.monotonic()))


class LoopWriter:
    """PostgreSQL's writer in the event loop (D76): one task takes everything queued when its
    previous commit returned and commits it over one psycopg ``AsyncConnection`` — a batch of
    actions (nearly every batch) in one statement, one round trip, with a deadline; any other
    batch (a deal, a score, seats, a room's creation) in a thread of its own through the
    synchronous store, awaited by the task, so the commits stay one after the other. The
    retries, the holding back and the answers are the writer thread's (:class:`Database`)."""

    def __init__(self, db: Database, store: PostgresStore) -> None:
        self.db = db
        self.store = store
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[_Pending] | None = None
        self._task: asyncio.Task[None] | None = None
        self._conn: Any = None
        self._thread = concurrent.futures.ThreadPoolExecutor(1, "paohuzi-db-write")

    def put(self, pending: _Pending) -> None:
        if self._queue is None or self._loop is not pending.loop:
            self._loop = pending.loop
            self._queue = asyncio.Queue()
            self._task = pending.loop.create_task(self._run(self._queue))
        self._queue.put_nowait(pending)

    async def _run(self, waiting: asyncio.Queue[_Pending]) -> None:
        db = self.db
        while True:
            batch = [await waiting.get()]
            while len(batch) < BATCH and not waiting.empty():
                batch.append(waiting.get_nowait())
            started = [p for p in batch if p.future.set_running_or_notify_cancel()]
            try:
                for p in batch:
                    if p not in started:
                        db._done(p)
                grouped = [p for p in started if p.write.kind != "create_room"]
                if grouped:
                    await self._commit(grouped)
                for p in started:
                    if p.write.kind == "create_room":
                        await self._alone(p)
            finally:
                answered, db._answered = db._answered, []
                _resolve(answered)

    async def _hold_back(self) -> None:
        told = False
        while not self.db.lease_ok() and not self.db._stopping:
            if not told:
                log.warning("hall: the leases were not renewed in time; writes wait")
                told = True
            await asyncio.sleep(0.05)

    async def _again(self, tries: int, error: StoreError) -> int:
        if tries == 0:
            log.warning("the database is stalled; writes are kept and tried again: %s", error)
        await asyncio.sleep(min(0.05 * 2**tries, 0.5))
        return tries + 1

    async def _commit(self, batch: list[_Pending]) -> None:
        db = self.db
        tries = 0
        while True:
            await self._hold_back()
            try:
                results = await self._apply([p.write for p in batch])
            except StoreError as error:
                if self.store.transient(error) and not db._stopping:
                    tries = await self._again(tries, error)
                    continue
                for p in batch:
                    await self._alone(p)
                return
            except Exception as error:  # a bug: refuse the writes, keep the writer alive
                log.exception("the writer failed")
                for p in batch:
                    db._finish(p, StoreError(f"{type(error).__name__}: {error}"))
                return
            db.commits += 1
            db.written += len(batch)
            for p, result in zip(batch, results, strict=True):
                db._finish(p, result)
            return

    async def _alone(self, pending: _Pending) -> None:
        db = self.db
        tries = 0
        loop = asyncio.get_running_loop()
        while True:
            await self._hold_back()
            try:
                result = await loop.run_in_executor(
                    self._thread, self.store.apply_write, pending.write
                )
            except StoreError as error:
                if self.store.transient(error) and not db._stopping:
                    tries = await self._again(tries, error)
                    continue
                db._finish(pending, error)
                return
            except Exception as error:
                log.exception("the writer failed")
                db._finish(pending, StoreError(f"{type(error).__name__}: {error}"))
                return
            db.commits += 1
            db.written += 1
            db._finish(pending, None, result)
            return

    async def _apply(self, writes: list[Write]) -> list[StoreError | None]:
        args = self.store.batch_of_actions(writes)
        if args is None:  # the general way, in order after the batches before it
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._thread, self.store.apply_writes, writes)
        psycopg = self.store._psycopg
        try:
            # The deadline cancels this task itself (``asyncio.timeout``), where ``wait_for``
            # would run the statement in a task of its own: two more turns of a busy event
            # loop for every commit, which every write of the batch waits for.
            async with asyncio.timeout(TRY_DEADLINE):
                found = await self._execute(args)
        except (psycopg.Error, TimeoutError) as error:
            self._drop()
            if isinstance(error, TimeoutError):
                error = psycopg.OperationalError(f"no answer within {TRY_DEADLINE:g} s")
            raise StoreError(str(error)) from error
        return self.store.batch_results(writes, found)

    async def _execute(self, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        if self._conn is None or self._conn.closed:
            if self.store._closed:
                raise StoreError("the store is closed")
            self._conn = await self.store._psycopg.AsyncConnection.connect(
                self.store.url, **PG_OPTIONS
            )
        cursor = await self._conn.execute(ACTIONS_AT_ONCE, args)
        found: list[tuple[Any, ...]] = await cursor.fetchall()
        return found

    def _drop(self) -> None:
        """Forget the connection (after a failure or a deadline: its state is unknown)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with suppress(Exception):
                conn.pgconn.finish()

    def close(self) -> None:
        """Stop the task; commit what is still queued through the synchronous store (the
        server stops: its event loop waits for this)."""
        if self._task is not None:
            self._task.cancel()
        left: list[_Pending] = []
        while self._queue is not None and not self._queue.empty():
            left.append(self._queue.get_nowait())
        started = [p for p in left if p.future.set_running_or_notify_cancel()]
        grouped = [p.write for p in started if p.write.kind != "create_room"]
        with suppress(Exception):
            if grouped:
                self.store.apply_writes(grouped)
            for p in started:
                if p.write.kind == "create_room":
                    self.store.apply_write(p.write)
        self._thread.shutdown(wait=False)
        self._drop()
