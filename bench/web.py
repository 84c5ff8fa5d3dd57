"""Web app benchmark (issue 14): open-exit request latency at 1, 10 and 50 concurrent
clients against ONE real `kerker serve` on loopback, the instance's memory (RSS) before and
after, RSS over a bounded run of a few thousand mixed requests, and how long a player
stream on a SECOND instance takes to hear of an opened door.

Every client opens exits ("next") on a session of its own, made before the clock starts
(so no client waits on another's 409), a fixed number of requests per client, one
keep-alive connection each. Latency is measured in the client, request sent to response
read. The clients are the bench's own few-line HTTP/1.1 client (:class:`RawClient`, the
default: a load generator must cost less than the server it loads) or, with ``--client
httpx`` (or ``raw,httpx``: both in turn), httpx; the table names each and the CPU it used.
Each level runs once per answer: ``full`` (the whole state, the issue's request) and
``delta`` (``?since=`` the client's last event; docs/api.md), fresh sessions for each;
``--answer page`` also what the GM page's script does (the form, the redirect, the HTML);
``--floor`` adds a no-op POST route on the same server stack (middleware, body parsing),
the platform's own floor beside kerker's figures. Run: ``python bench/web.py [--db URL]
[--requests N] [--workers N] [--answer full,delta] [--client raw,httpx] [--floor]
[--memory N] [--quick]``;
``--db`` defaults to a fresh SQLite file in a temporary folder, ``--db postgresql://...``
(e.g. from ``scripts/pg_ci.sh start``) measures PostgreSQL and its LISTEN/NOTIFY delay;
``--workers N`` starts the instance as ``kerker serve --workers N`` (its memory is then
that of all its processes). ``--stages`` first times the stages of an open request
in-process (no HTTP): the step with the state cache, the view, the JSON, and a full
replay of the same log for comparison.
``KERKER_BENCH_SRC=/path/to/other/src`` serves another checkout's sources (before/after).
It measures and prints; the goal line (p99 < 100 ms at 50 clients) is informational.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
GOAL_P99_MS = 100.0
SESSION = {"seed": 0, "max_areas": 60, "min_areas": 40}
"""Options of every benchmark session (seed varied per client)."""


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


FLOOR_ROUTE = "/api/bench-floor/{session}/open"
_FLOOR = """
import sys
from typing import Annotated, Any
from fastapi import Body
from fastapi.responses import Response
import kerker.web as web
make = web.create_app
def create_app(db=None):
    app = make(db)
    @app.post("/api/bench-floor/{session}/open", include_in_schema=False)
    def floor(session: str, body: Annotated[dict[str, Any] | None, Body()] = None) -> Response:
        return Response(b'{"seq": 0}', media_type="application/json")
    return app
web.create_app = create_app
sys.argv = ["kerker", *sys.argv[1:]]
from kerker.cli import main
main()
"""
"""``kerker serve`` with one more route, a no-op POST that goes through the same server,
middleware and body parsing as an open (``--floor``: the platform's own floor)."""


class Server:
    """A `kerker serve` subprocess on loopback (``floor``: with :data:`FLOOR_ROUTE`)."""

    def __init__(self, db: str, log: Path, workers: int = 1, floor: bool = False) -> None:
        self.port = _port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "PYTHONPATH": os.environ.get("KERKER_BENCH_SRC", str(ROOT / "src"))
            + os.pathsep
            + os.environ.get("PYTHONPATH", ""),
        }
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    *(["-c", _FLOOR] if floor else ["-m", "kerker"]),
                    "serve",
                    "--port",
                    str(self.port),
                    "--db",
                    db,
                    *(["--workers", str(workers)] if workers != 1 else []),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        deadline = time.monotonic() + 60
        with httpx.Client(base_url=self.url) as client:
            while True:
                if self.proc.poll() is not None:
                    raise SystemExit(f"kerker serve exited: {log.read_text()[-1500:]}")
                try:
                    if client.get("/api/openapi.json").status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    self.stop()
                    raise SystemExit("kerker serve did not answer within 60 s")
                time.sleep(0.2)

    def pids(self) -> list[int]:
        """The server process and its children (the workers of ``--workers N``)."""
        found = [self.proc.pid]
        for pid in found:
            for task in Path(f"/proc/{pid}/task").glob("*/children"):
                found += [int(c) for c in task.read_text().split()]
        return found

    def rss_mib(self) -> float:
        """Resident memory of the instance: all its processes (the supervisor of several
        workers and uvicorn's resource tracker included)."""
        total = 0.0
        for pid in self.pids():
            try:
                lines = Path(f"/proc/{pid}/status").read_text().splitlines()
            except OSError:
                continue
            for line in lines:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        return total

    def cpu_s(self) -> float:
        """CPU seconds (user + system) the instance's processes have used so far."""
        tick = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for pid in self.pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick
        return total

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


async def _sessions(url: str, count: int, first_seed: int) -> list[tuple[str, str]]:
    """New sessions: (id, game master token) each."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        out = []
        for n in range(count):
            got = await client.post("/api/sessions", json={**SESSION, "seed": first_seed + n})
            got.raise_for_status()
            out.append((got.json()["session"], got.json()["gm_token"]))
        return out


class RawClient:
    """The bench's own HTTP/1.1 client: one keep-alive connection on asyncio streams, the
    request written in one piece, the status line, the headers and a ``Content-Length``
    body read back (all kerker's answers here carry one; a ``Connection: close`` answer
    makes the next request connect again). A load generator must cost less than the
    server it loads: this one does no more than that (no URL parsing, cookie jar,
    redirects but the one ``page`` follows, or decoding)."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        host, _, port = url.removeprefix("http://").partition(":")
        self.host, self.port = host, int(port)
        self.fixed = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.fixed += f"Host: {host}:{port}\r\n"
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> RawClient:
        await self._connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.writer is not None:
            self.writer.close()

    async def _connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def request(
        self,
        method: str,
        path: str,
        body: bytes = b"",
        kind: str = "application/json",
        more: str = "",
    ) -> tuple[int, dict[bytes, bytes], bytes]:
        """(status, headers with lower-case names, body) of one request (``more``: header
        lines of this request alone, each ending in CRLF)."""
        if self.writer is None or self.writer.is_closing():
            await self._connect()
        assert self.reader is not None and self.writer is not None
        head = f"{method} {path} HTTP/1.1\r\n{self.fixed}{more}"
        if method == "POST":
            head += f"Content-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
        self.writer.write(head.encode() + b"\r\n" + body)
        line = await self.reader.readline()
        if not line:
            raise ConnectionError("the server closed the connection")
        status = int(line.split(b" ", 2)[1])
        headers: dict[bytes, bytes] = {}
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        size = int(headers.get(b"content-length", b"0"))
        data = await self.reader.readexactly(size) if size else b""
        if headers.get(b"connection", b"").lower() == b"close":
            self.writer.close()
            self.writer = None
        return status, headers, data


async def _load(
    url: str,
    sessions: list[tuple[str, str]],
    requests: int,
    answer: str = "full",
    cpu: Any = None,
    client_kind: str = "raw",
) -> tuple[list[float], int, float, float, float]:
    """Every client opens `requests` exits on its own session; latencies in ms, the
    number of answers other than 200, the wall time of the whole level, the server's
    CPU seconds over it (``cpu()``: the server's CPU time so far; 0 without) and the
    load generator's own (this process). Every
    client first connects and reads its session's state; the clock starts when all have.
    ``answer``:
    ``full`` (the whole state each time), ``delta`` (``?since=`` the last event the client
    holds: what changed) or ``floor`` (the no-op route of ``--floor``). ``client_kind``:
    ``raw`` (:class:`RawClient`) or ``httpx``."""
    times: list[float] = []
    bad = 0
    reasons: dict[str, int] = {}
    ready = 0
    go = asyncio.Event()
    start: list[float] = []

    def path_of(session: str) -> str:
        if answer == "floor":
            return FLOOR_ROUTE.format(session=session)
        if answer == "page":
            return f"/play/{session}/open"
        return f"/api/sessions/{session}/open"

    def settle(status: int, text: bytes) -> None:
        nonlocal bad
        if status != 200:
            bad += 1
            why = f"{status} {text.decode(errors='replace')}"[:120]
            reasons[why] = reasons.get(why, 0) + 1

    def arrived() -> None:
        nonlocal ready
        ready += 1
        if ready == len(sessions):
            start.extend((time.perf_counter(), cpu() if cpu else 0.0, time.process_time()))
            go.set()

    async def raw(made: tuple[str, str]) -> None:
        session, gm = made
        headers = {"X-Kerker-GM": gm, "Cookie": f"kerker_gm_{session}={gm}"}
        async with RawClient(url, headers) as c:
            status, _h, data = await c.request("GET", f"/api/sessions/{session}")
            seq = json.loads(data)["seq"]  # connected and read before the clock starts
            arrived()
            await go.wait()
            path = path_of(session)
            for _ in range(requests):
                t0 = time.perf_counter()
                if answer == "page":  # the GM page's script: the form, then the page
                    status, got, data = await c.request(
                        "POST",
                        path,
                        b"exit=next",
                        "application/x-www-form-urlencoded",
                        "Accept: text/html\r\n",
                    )
                    if status == 303:
                        status, got, data = await c.request("GET", got[b"location"].decode())
                else:
                    query = f"?since={seq}" if answer == "delta" else ""
                    status, got, data = await c.request("POST", path + query, b'{"exit":"next"}')
                if answer == "delta" and status == 200:
                    seq = json.loads(data)["seq"]
                times.append((time.perf_counter() - t0) * 1000)
                settle(status, data)

    async def client(made: tuple[str, str]) -> None:
        session, gm = made
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        async with httpx.AsyncClient(
            base_url=url,
            timeout=120,
            limits=limits,
            headers={"X-Kerker-GM": gm},
            cookies={f"kerker_gm_{session}": gm},
            follow_redirects=answer == "page",
        ) as c:
            got = await c.get(f"/api/sessions/{session}")  # connect before the clock starts
            seq = got.json()["seq"]
            arrived()
            await go.wait()
            path = path_of(session)
            for _ in range(requests):
                params = {"since": seq} if answer == "delta" else None
                t0 = time.perf_counter()
                if answer == "page":  # the GM page's script: the form, then the page
                    got = await c.post(path, data={"exit": "next"}, headers={"Accept": "text/html"})
                else:
                    got = await c.post(path, json={"exit": "next"}, params=params)
                await got.aread()
                if answer == "delta" and got.status_code == 200:
                    seq = got.json()["seq"]
                times.append((time.perf_counter() - t0) * 1000)
                settle(got.status_code, got.content)

    each = raw if client_kind == "raw" else client
    await asyncio.gather(*(each(s) for s in sessions))
    wall, used = time.perf_counter() - start[0], (cpu() if cpu else 0.0) - start[1]
    mine = time.process_time() - start[2]
    for why, n in sorted(reasons.items()):
        print(f"  {len(sessions)} clients: {n} x {why}")
    return times, bad, wall, used, mine


def _memory_run(server: Server, total: int, step: int) -> list[tuple[int, float]]:
    """`total` mixed requests on one session (open, undo, GM state, player page, in turn),
    RSS every `step`; the log stays short (open, undo, redo... stays a few events)."""
    marks: list[tuple[int, float]] = []
    with httpx.Client(base_url=server.url, timeout=60) as c:
        made = c.post("/api/sessions", json={**SESSION, "seed": 99}).json()
        sid, token = made["session"], made["player_token"]
        for _ in range(3):
            c.post(f"/api/sessions/{sid}/open", json={"exit": "next"}).raise_for_status()
        marks.append((0, server.rss_mib()))
        for n in range(1, total + 1):
            kind = n % 4
            if kind == 0:
                got = c.post(f"/api/sessions/{sid}/open", json={"exit": "next"})
            elif kind == 1:
                got = c.post(f"/api/sessions/{sid}/undo", json={})
            elif kind == 2:
                got = c.get(f"/api/sessions/{sid}")
            else:
                got = c.get(f"/watch/{token}")
            got.raise_for_status()
            if n % step == 0:
                marks.append((n, server.rss_mib()))
    return marks


def _stream_delay(writer: Server, reader: Server, repeats: int) -> list[float]:
    """Open a door on `writer` and time until a player stream on `reader` says so (ms,
    from the open's response; negative: the stream was told before the response came)."""
    with httpx.Client(base_url=writer.url, timeout=60) as c:
        made = c.post("/api/sessions", json={**SESSION, "seed": 123}).json()
    sid, token = made["session"], made["player_token"]
    arrived: dict[int, float] = {}
    ready = threading.Event()
    done = threading.Event()

    def read() -> None:
        with (
            httpx.Client(timeout=httpx.Timeout(30, read=60)) as s,
            s.stream("GET", f"{reader.url}/watch/{token}/events") as r,
        ):
            kind = ""
            for line in r.iter_lines():
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: "):
                    if kind == "hello":
                        ready.set()
                    elif kind == "changed":
                        arrived[int(line[6:])] = time.perf_counter()
                        if len(arrived) >= repeats:
                            done.set()
                            return

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    if not ready.wait(30):
        raise SystemExit("the player stream did not say hello")
    sent: dict[int, float] = {}
    gm = {"X-Kerker-GM": made["gm_token"]}
    with httpx.Client(base_url=writer.url, timeout=60, headers=gm) as c:
        for _ in range(repeats):
            got = c.post(f"/api/sessions/{sid}/open", json={"exit": "next"})
            got.raise_for_status()
            sent[got.json()["seq"]] = time.perf_counter()
            deadline = time.monotonic() + 30
            while got.json()["seq"] not in arrived and time.monotonic() < deadline:
                time.sleep(0.005)
            time.sleep(0.3)  # apart from the poll's phase, so each step is timed alone
    done.wait(30)
    return [(arrived[s] - sent[s]) * 1000 for s in sent if s in arrived]


def _stages(db: str, steps: int, count: int = 10) -> None:
    """Time an open request's stages in-process, on 10 sessions of their own, ``steps``
    opens each: the step through the web app's session layer (store look-up, the state
    cache's catch-up or a fold, propose, apply, fingerprint, append; of it the frozen
    snapshot and the fingerprint's digest apart, see bench/freeze.py), the view
    (``show``), its JSON; and for comparison a full replay of the same log per step.
    Medians of wall and CPU time in ms; then what the cyclic garbage collector took over
    the whole run, with the thresholds ``kerker serve`` runs with (``kerker.cli.main``;
    ``count`` sessions: its young generation holds the states of every session opened
    since the last collection)."""
    import gc

    sys.path.insert(0, str(ROOT / "src"))
    from starlette.responses import JSONResponse

    from kerker.play.session import fold
    from kerker.play.views import show
    from kerker.web import services
    from kerker.web.delta import encode
    from kerker.web.sessions import _LENT, Sessions

    sessions = Sessions(db)
    marks: dict[str, list[tuple[float, float]]] = {}
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)  # as kerker.cli.main sets them for every command
    collected: list[list[float]] = [[], [], []]
    began = [0.0]

    def collector(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.thread_time()
        else:
            collected[info["generation"]].append((time.thread_time() - began[0]) * 1000)

    def timed(label: str, work: Any) -> Any:
        t0, c0 = time.perf_counter(), time.process_time()
        out = work()
        marks.setdefault(label, []).append(
            ((time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000)
        )
        return out

    def request(work: Any) -> Any:
        lent: list[Any] = []
        token = _LENT.set(lent)
        try:
            return work()
        finally:
            _LENT.reset(token)
            sessions.give_back(lent)

    made = [
        request(
            lambda n=n: sessions.new(
                services.DungeonOptions(
                    seed=5000 + n, max_areas=SESSION["max_areas"], min_areas=SESSION["min_areas"]
                ),
                "",
            )
        ).info
        for n in range(count)
    ]
    ids = [info.id for info in made]
    tokens = {info.id: info.gm_token for info in made}

    from kerker.dungeon.engine import DungeonState
    from kerker.play.session import _Prints

    snapshot, digest = DungeonState.snapshot, _Prints.digest
    in_step = [False]
    frozen_label = "step, of it: frozen (DungeonState.snapshot)"
    print_label = "step, of it: fingerprint (_Prints.digest)"

    def timed_snapshot(self: Any) -> Any:
        if not in_step[0]:
            return snapshot(self)
        return timed(frozen_label, lambda: snapshot(self))

    def timed_digest(self: Any, dungeon: Any) -> Any:
        if not in_step[0]:
            return digest(self, dungeon)
        return timed(print_label, lambda: digest(self, dungeon))

    def act(sid: str) -> Any:
        in_step[0] = True
        try:
            return sessions.act(sid, "open", None, tokens[sid], exit="next")
        finally:
            in_step[0] = False

    def step(sid: str) -> None:
        state = timed("step (Sessions.act, cached state)", lambda: act(sid))
        doc = timed("view (views.show, gm)", lambda: show(state, "gm", "en"))
        index = timed("JSON (orjson, piece by piece: web.delta.encode)", lambda: encode(doc))[1]
        if index is not None:
            timed("delta (digests, compared with the last answer's)", lambda: index.digested())
        timed("for comparison: JSON by the standard library", lambda: JSONResponse(doc).body)
        timed(
            "for comparison: full replay",
            lambda: fold(state.info, list(state.events), services.registry()),
        )

    gc.callbacks.append(collector)
    marks["step (Sessions.act, cached state)"] = []
    marks[frozen_label] = []
    marks[print_label] = []
    DungeonState.snapshot = timed_snapshot  # type: ignore[method-assign]
    _Prints.digest = timed_digest  # type: ignore[method-assign]
    cpu0 = time.process_time()
    try:
        for _ in range(steps):
            for sid in ids:
                request(lambda sid=sid: step(sid))
    finally:
        gc.callbacks.remove(collector)
        DungeonState.snapshot, _Prints.digest = snapshot, digest  # type: ignore[method-assign]
    spent = (time.process_time() - cpu0) * 1000
    sessions.close()
    print(f"\nstages of an open request, in-process ({len(ids)} sessions x {steps} opens):")
    print("| stage | wall ms (median) | CPU ms (median) |")
    print("| --- | ---: | ---: |")
    for label, got in marks.items():
        wall = statistics.median(w for w, _c in got)
        cpu = statistics.median(c for _w, c in got)
        print(f"| {label} | {wall:.1f} | {cpu:.1f} |")
    print(f"cache: {sessions.cache.stats}")
    runs = [
        f"gen{g}: {len(ms)} x {statistics.median(ms):.1f} ms (max {max(ms):.1f})"
        for g, ms in enumerate(collected)
        if ms
    ]
    share = 100 * sum(map(sum, collected)) / spent if spent else 0.0
    print(
        f"cyclic GC over the run: {'; '.join(runs) or 'none'}; {share:.1f} % of the run's "
        "CPU (the comparisons included)\n"
    )


ANSWERS = {
    "full": "the whole state each time (the issue's request; the default answer of the API)",
    "delta": "?since= the client's last event: what changed (what an API client that keeps "
    "the state sends; the pages swap server-rendered HTML and use neither)",
    "page": "what the GM page's script does: POST /play/ID/open (form), follow the 303 "
    "and read the page's HTML (map, key, journal drawn by the server)",
    "floor": "a no-op POST route on the same server, middleware and body parsing "
    "(the platform's own floor; --floor)",
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    ap.add_argument(
        "--requests",
        type=int,
        default=20,
        help="open requests per client at each level (default 20, at most 35)",
    )
    ap.add_argument("--clients", default="1,10,50")
    ap.add_argument(
        "--answer",
        default="full,delta",
        help="answers to measure at each level, of full, delta, page (default full,delta)",
    )
    ap.add_argument(
        "--floor", action="store_true", help="also the no-op route of the same server stack"
    )
    ap.add_argument(
        "--memory",
        type=int,
        default=3000,
        help="requests of the memory run (default 3000; 0: no memory run)",
    )
    ap.add_argument(
        "--no-stream", action="store_true", help="no second instance (the player stream's delay)"
    )
    ap.add_argument("--quick", action="store_true", help="a few requests: does it still run")
    ap.add_argument("--workers", type=int, default=1, help="kerker serve --workers (default 1)")
    ap.add_argument(
        "--client",
        default="raw",
        help="the load generator's clients, of raw (the bench's own HTTP/1.1 client, the "
        "default) and httpx; comma-separated: each level runs once per client",
    )
    ap.add_argument(
        "--stages", action="store_true", help="first time an open request's stages in-process"
    )
    ap.add_argument(
        "--stage-sessions",
        type=int,
        default=10,
        help="sessions of --stages (default 10; 50: what the 50 clients' states cost the GC)",
    )
    args = ap.parse_args()
    requests = 3 if args.quick else max(1, min(args.requests, 35))
    memory = 200 if args.quick else (0 if args.memory <= 0 else max(100, min(args.memory, 20_000)))
    levels = [int(x) for x in args.clients.split(",")]
    kinds = [k.strip() for k in args.client.split(",") if k.strip()]
    if not kinds or any(k not in ("raw", "httpx") for k in kinds):
        ap.error("--client takes raw and httpx (comma-separated)")
    answers = [a.strip() for a in args.answer.split(",") if a.strip()]
    if not answers or any(a not in ("full", "delta", "page") for a in answers):
        ap.error("--answer takes full, delta and page (comma-separated)")
    if args.floor:
        if args.workers != 1:
            ap.error("--floor runs with one worker only")
        answers.append("floor")
    folder = Path(tempfile.mkdtemp(prefix="kerker-bench-web-"))
    db = args.db or str(folder / "sessions.sqlite3")
    kind = "postgresql" if db.startswith("postgres") else "sqlite"
    print(f"# bench/web.py  {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}")
    print(
        f"python {platform.python_version()}  {platform.platform()}  cpus {os.cpu_count()}"
        f"  load {os.getloadavg()[0]:.2f}  store {kind}  http {_stack()}"
    )
    print(
        f"each client: its own session ({SESSION['max_areas']} areas at most), "
        f'{requests} x POST /api/sessions/ID/open {{"exit": "next"}}, one keep-alive '
        f"connection; one kerker serve instance; clients: {', '.join(kinds)}. Answers:"
    )
    for name in answers:
        print(f"  {name}: {ANSWERS[name]}")
    if args.stages:
        _stages(
            args.db or str(folder / "stages.sqlite3"), 3 if args.quick else 20, args.stage_sessions
        )
    print(f"instance: kerker serve --workers {args.workers}")
    server = Server(db, folder / "serve-a.log", args.workers, floor=args.floor)
    errors = 0
    rows: list[Any] = []
    try:
        rss0 = server.rss_mib()
        seed = 1000
        for count in levels:
            for answer, kind_of in [(a, k) for a in answers for k in kinds]:
                sessions = asyncio.run(_sessions(server.url, count, seed))
                seed += count
                before = server.rss_mib()
                times, bad, wall, used, mine = asyncio.run(
                    _load(server.url, sessions, requests, answer, server.cpu_s, kind_of)
                )
                cpu = used * 1000 / max(1, len(times))
                own = mine * 1000 / max(1, len(times))
                errors += bad
                rows.append(
                    (
                        count,
                        answer,
                        kind_of,
                        len(times),
                        statistics.median(times),
                        _pct(times, 99),
                        max(times),
                        len(times) / wall,
                        bad,
                        before,
                        server.rss_mib(),
                        cpu,
                        own,
                    )
                )
        print()
        print(
            "| clients | answer | client | requests | p50 ms | p99 ms | max ms | req/s | "
            "non-200 | server CPU ms/request | client CPU ms/request | RSS before MiB | "
            "RSS after MiB |"
        )
        print("| ---: | --- | --- |" + " ---: |" * 10)
        for count, answer, kind_of, n, p50, p99, top, rate, bad, before, after, cpu, own in rows:
            print(
                f"| {count} | {answer} | {kind_of} | {n} | {p50:.1f} | {p99:.1f} | {top:.1f} | "
                f"{rate:.1f} | {bad} | {cpu:.2f} | {own:.2f} | {before:.1f} | {after:.1f} |"
            )
        print(
            "(server CPU per request: user + system of the instance's processes over the "
            "timed requests, from when every client has connected and read its state; "
            "/proc's clock ticks: 10 ms; client CPU: this process, the load generator)\n"
            f"RSS at start {rss0:.1f} MiB; load now {os.getloadavg()[0]:.2f}"
        )
        if memory:
            marks = _memory_run(server, memory, max(1, memory // 6))
            print(f"\nmemory run: {memory} requests (open, undo, GM state, player page in turn)")
            print("| requests | RSS MiB |")
            print("| ---: | ---: |")
            for n, rss in marks:
                print(f"| {n} | {rss:.1f} |")
            growth = marks[-1][1] - marks[1][1] if len(marks) > 2 else float("nan")
            print(
                f"growth after the first {marks[1][0] if len(marks) > 1 else 0} requests: "
                f"{growth:+.1f} MiB"
            )
        if not args.no_stream:
            second = Server(db, folder / "serve-b.log")
            try:
                delays = _stream_delay(server, second, 3 if args.quick else 10)
            finally:
                second.stop()
            how = "LISTEN/NOTIFY" if kind == "postgresql" else "polling the file every 1 s"
            if delays:
                print(
                    f"\nplayer stream on a second instance ({how}): told {len(delays)} times, "
                    f"after the open's response: median {statistics.median(delays):.0f} ms, "
                    f"min {min(delays):.0f} ms, max {max(delays):.0f} ms"
                )
            else:
                print("\nplayer stream on a second instance: told nothing (ERROR)")
                errors += 1
    finally:
        server.stop()
    for row in rows:
        if row[0] == 50 and row[1] in ("full", "delta"):
            verdict = "PASS" if row[5] < GOAL_P99_MS else "MISS"
            print(
                f"\n{verdict} ({row[1]}, {row[2]} client): p99 at 50 clients {row[5]:.1f} ms "
                f"(goal < {GOAL_P99_MS:.0f} ms)"
            )
    if errors:
        print(f"ERROR: {errors} requests did not answer 200")
    return 1 if errors else 0


def _stack() -> str:
    """The HTTP parser and event loop uvicorn picks here ("auto": httptools and uvloop when
    they are installed, as kerker's dependencies ask on CPython outside Windows)."""
    import importlib.util

    parser = "httptools" if importlib.util.find_spec("httptools") else "h11"
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    return f"{parser}+{loop}"


if __name__ == "__main__":
    sys.exit(main())
