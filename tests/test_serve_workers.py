"""``kerker serve --workers N`` on Linux (kerker.web.workers): each worker listens on a
socket of its own on the one port, so the kernel spreads connections over them; a worker
that dies is started again; SIGTERM stops them all; and the workers' concurrent writes to
one SQLite file lose and double nothing (the store's cross-process writer turn).

No wall-clock assertion: every wait is bounded and fails saying what did not happen.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
WAIT = 60.0
"""Seconds the server may take to come up, or a worker to be started again."""

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="SO_REUSEPORT workers: Linux only"
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        out += [int(c) for c in task.read_text().split()]
    return out


def _workers(pid: int) -> list[int]:
    """The worker processes of the server ``pid`` (its children that listen: the
    multiprocessing resource tracker does not)."""
    return [c for c in _children(pid) if _sockets(c) > 0]


def _sockets(pid: int) -> int:
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return 0
    count = 0
    for fd in fds:
        with contextlib.suppress(OSError):
            count += os.readlink(fd).startswith("socket:")
    return count


def _until(what: str, check: object, tries: int = int(WAIT / 0.2)) -> None:
    for _try in range(tries):
        if check():  # type: ignore[operator]
            return
        time.sleep(0.2)
    pytest.fail(f"within {WAIT:.0f} s: {what}")


@pytest.fixture
def server(tmp_path: Path) -> object:
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    env.pop("KERKER_DB", None)
    log = tmp_path / "serve.log"
    db = tmp_path / "sessions.sqlite3"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kerker",
                "serve",
                "--port",
                str(port),
                "--db",
                str(db),
                "--workers",
                "2",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=ROOT,
        )
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        if proc.poll() is not None:
            pytest.fail(f"kerker serve exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            return httpx.get(url + "/api/openapi.json", timeout=10).status_code == 200
        except httpx.TransportError:
            return False

    _until("kerker serve --workers 2 answers", up)
    _until("two workers listen", lambda: len(_workers(proc.pid)) == 2)
    try:
        yield proc, url, log
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _listening(port: int) -> int:
    """How many sockets listen on 127.0.0.1:``port`` (/proc/net/tcp, state 0A)."""
    want = f"0100007F:{port:04X}"
    rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return sum(1 for r in rows if r.split()[1] == want and r.split()[3] == "0A")


def test_connections_are_spread_over_the_workers(server: object) -> None:
    proc, url, _log = server  # type: ignore[misc]
    # a socket of each worker's own (one shared socket goes to whichever loop is idle)
    assert _listening(int(url.rsplit(":", 1)[1])) == 2
    workers = _workers(proc.pid)
    clients = [httpx.Client(base_url=url, timeout=30) for _ in range(40)]
    try:
        for client in clients:  # each one keep-alive connection, held open
            assert client.get("/api/tables").status_code == 200
        # each worker: its listening socket and the connections it took; hashed onto the
        # two sockets, all 40 on one worker has a chance of 2^-39
        held = {w: _sockets(w) for w in workers}
        assert all(n >= 2 for n in held.values()), held
        assert sum(held.values()) >= 2 + 40, held
    finally:
        for client in clients:
            client.close()


def test_a_dead_worker_is_started_again_and_sigterm_stops_all(server: object) -> None:
    proc, url, log = server  # type: ignore[misc]
    first = _workers(proc.pid)
    os.kill(first[0], signal.SIGKILL)
    _until(
        "the killed worker is replaced",
        lambda: len(_workers(proc.pid)) == 2 and first[0] not in _workers(proc.pid),
    )
    for _n in range(10):  # fresh connections land on both workers: all answer
        assert httpx.get(url + "/api/tables", timeout=30).status_code == 200
    workers = _workers(proc.pid)
    proc.terminate()
    proc.wait(timeout=WAIT)
    assert proc.returncode == 0, log.read_text(errors="replace")[-2000:]
    for pid in workers:
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text()


def test_concurrent_opens_on_two_workers_lose_and_double_nothing(server: object) -> None:
    _proc, url, _log = server  # type: ignore[misc]
    made = httpx.post(
        url + "/api/sessions",
        json={"seed": 7, "max_areas": 60, "min_areas": 40},
        timeout=30,
    ).json()
    sid, gm = made["session"], {"X-Kerker-GM": made["gm_token"]}

    def opens(n: int) -> list[int]:
        codes = []
        with httpx.Client(base_url=url, timeout=60, headers=gm) as client:
            for _ in range(n):
                got = client.post(f"/api/sessions/{sid}/open", json={"exit": "next"})
                codes.append(got.status_code)
        return codes

    # fresh connections per client: hashed over both workers, who write one SQLite file
    with ThreadPoolExecutor(8) as pool:
        codes = [c for got in pool.map(opens, [6] * 8) for c in got]
    assert set(codes) <= {200, 400, 409}, codes
    state = httpx.get(f"{url}/api/sessions/{sid}", headers=gm, timeout=30).json()
    log = httpx.get(
        f"{url}/api/sessions/{sid}/journal", params={"format": "json"}, headers=gm, timeout=30
    ).json()
    seqs = [e["seq"] for e in log["events"]]
    assert seqs == list(range(1, len(seqs) + 1))  # nothing lost, nothing twice
    assert state["seq"] == len(seqs) == codes.count(200)


def test_a_second_server_on_the_port_is_refused_not_let_in(server: object, tmp_path: Path) -> None:
    """SO_REUSEPORT lets any socket with the option share the port: a second `kerker serve
    --workers` there must fail as on any port in use, not take half the connections."""
    _proc, url, _log = server  # type: ignore[misc]
    port = url.rsplit(":", 1)[1]
    got = subprocess.run(
        [
            sys.executable,
            "-m",
            "kerker",
            "serve",
            "--port",
            port,
            "--workers",
            "2",
            "--db",
            str(tmp_path / "other.sqlite3"),
        ],
        capture_output=True,
        text=True,
        timeout=WAIT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        cwd=ROOT,
    )
    assert got.returncode == 2
    assert "cannot listen on" in got.stderr and "Traceback" not in got.stderr
    assert _listening(int(port)) == 2
