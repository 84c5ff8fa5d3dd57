"""``kerker serve --workers N`` on Linux: N uvicorn processes, each on a listening socket
of its own (``SO_REUSEPORT``), so the kernel spreads new connections over them.

uvicorn's own supervisor gives every worker one shared socket. Whichever worker's loop
is idle when connections arrive accepts them all (asyncio accepts up to the backlog per
wake-up), and a busy worker accepts none: measured with the 50 keep-alive clients of
``bench/web.py`` on 2 workers, 40 connections on one worker and 10 on the other, so the
one with 40 set every client's latency. With a socket per worker the kernel hashes each
new connection onto one of them (docs/web.md, "Speed").

A worker that dies is started again on its socket; Ctrl-C or SIGTERM stops them all
(each finishes its requests in flight, as uvicorn does)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import sys
import time
from typing import Any

STOP_WAIT = 20.0
"""Seconds the workers get to finish their requests in flight when stopped."""
QUICK = 5.0
RESTARTS = 5
"""A worker that dies within :data:`QUICK` seconds of its start more than this many
times in a row stops the server (:class:`WorkersFailed`)."""


class WorkersFailed(Exception):
    """The workers keep dying as they start (the exit code of the last)."""

    def __init__(self, code: int | None) -> None:
        super().__init__(code)
        self.code = code


GC_THRESHOLDS = (5_000, 4, 100)
"""The cyclic garbage collector's thresholds in a server process. A collection stops every
request in flight, so they are made small rather than rare: young collections every 5 000
allocations (max 5 ms, in-process over 50 sessions x 35 opens), a middle one every fourth
(12 ms; with the command line's 20 000, 20 it walked twenty young generations' survivors at
once: 60 to 70 ms), a full one after a hundred middle ones and, as always, only once the old
generation grew by a quarter. The collector's share stays ~0.2 ms per open."""


def server_gc() -> None:
    """Set the collector of a server process: what is loaded so far (the app, the rule
    data, the catalogs) is frozen, never walked again, and :data:`GC_THRESHOLDS`."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def usable() -> bool:
    """Whether the kernel spreads connections over sockets sharing a port (Linux)."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` that other sockets may share
    (``SO_REUSEPORT``); refuses an address in use by another program with :class:`OSError`."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        sock.listen(2048)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


def _worker(sock: socket.socket, env_name: str, db: str) -> None:
    """One worker process: uvicorn on ``sock`` with the app of :func:`worker_app`."""
    import uvicorn

    os.environ[env_name] = db  # as uvicorn's own workers have it (kerker.commands.serve)
    from kerker.web import create_app

    app = create_app(db or None)
    server_gc()
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


def run(host: str, port: int, workers: int, env_name: str, db: str) -> None:
    """Serve with ``workers`` processes until Ctrl-C or SIGTERM (see the module's text).
    ``env_name``/``db``: how each worker learns the database URL."""
    # a socket without SO_REUSEPORT first: a port another server (another `kerker serve
    # --workers`, too) listens on is refused, not silently shared with it
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
    socks = [bind(host, port) for _ in range(workers)]
    context = multiprocessing.get_context("spawn")
    stopping = False

    quick = 0

    def start(sock: socket.socket) -> Any:
        proc = context.Process(target=_worker, args=(sock, env_name, db), daemon=False)
        proc.start()
        proc.kerker_started = time.monotonic()  # type: ignore[attr-defined]
        return proc

    def stop(_signum: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True

    old = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    procs = [start(sock) for sock in socks]
    try:
        while not stopping:
            time.sleep(0.2)
            for n, proc in enumerate(procs):
                if not stopping and not proc.is_alive():
                    proc.join()
                    # a worker that keeps dying at start is not started for ever
                    quick = quick + 1 if time.monotonic() - proc.kerker_started < QUICK else 0
                    if quick > RESTARTS:
                        raise WorkersFailed(proc.exitcode)
                    procs[n] = start(socks[n])
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.terminate()  # SIGTERM: uvicorn finishes the requests in flight
        deadline = time.monotonic() + STOP_WAIT
        for proc in procs:
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.is_alive():
                proc.kill()
                proc.join()
        for sock in socks:
            sock.close()
        for sig, handler in old.items():
            signal.signal(sig, handler)
