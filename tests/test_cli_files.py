"""Files at the command line's edge (issue 18 part B): atomic writes, bounded reads, one
rule for byte order marks, nesting caps, CSV quotes and dice amounts."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kerker import fileio
from kerker.errors import KerkerError, RuleDataError
from kerker.fileio import InputFileError, WriteError, read_bytes, read_text, write_atomic
from kerker.tables.csvimport import dice_amounts, import_csv
from kerker.yamlio import load_yaml_file

SRC = Path(__file__).resolve().parent.parent / "src"

TABLE = """\
schema: 1
rule_set: eigen
language: en
tables:
  - name: ding
    title: {de: Ding, it: Cosa, en: Thing}
    dice: W2
    source: {heading: Thing}
    rows:
      - range: [1, 1]
        text: {de: Eins, it: Uno, en: One}
      - range: [2, 2]
        text: {de: Zwei, it: Due, en: Two}
"""


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(SRC), LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.pop("KERKER_TABLES", None)
    return subprocess.run(
        [sys.executable, "-m", "kerker", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kerker: error: "), proc.stderr
    return lines[0]


# -- atomic writes ---------------------------------------------------------------------------


def _failing_write(after: int):  # type: ignore[no-untyped-def]
    real = os.write
    state = {"left": after}

    def write(fd: int, data: bytes | memoryview) -> int:
        if state["left"] <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        n = real(fd, bytes(data[: state["left"]]))
        state["left"] -= n
        return n

    return write


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "plan.json"
    target.write_text("old plan\n", encoding="utf-8")
    monkeypatch.setattr(fileio.os, "write", _failing_write(3))
    with pytest.raises(WriteError, match="the disk is full"):
        write_atomic(target, "a much longer new plan\n" * 100)
    assert target.read_text(encoding="utf-8") == "old plan\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.json"]


def test_a_failed_write_of_a_new_file_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fileio.os, "write", _failing_write(0))
    with pytest.raises(WriteError):
        write_atomic(tmp_path / "new" / "map.svg", b"<svg/>")
    assert list((tmp_path / "new").iterdir()) == []


def test_atomic_write_keeps_the_permissions_and_writes_the_bytes(tmp_path: Path) -> None:
    target = tmp_path / "sheet.md"
    target.write_text("x", encoding="utf-8")
    target.chmod(0o640)
    write_atomic(target, "Fuß\nzwei\n")
    assert target.read_bytes() == "Fuß\nzwei\n".encode()
    assert target.stat().st_mode & 0o777 == 0o640


def test_empty_paths_are_refused(tmp_path: Path) -> None:
    with pytest.raises(WriteError):
        write_atomic(Path(""), "x")
    for args in (
        ["dungeon", "--seed", "1", "--out", ""],
        ["zones", "--out="],
        ["prowl", "-r", "2", "-p", "2", "--out", " "],
        ["table", "list", "--tables", ""],
    ):
        line = one_line_error(run(*args, cwd=tmp_path))
        assert "needs a path, not an empty value" in line
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def tiny_disk(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A 48 kB tmpfs (root only; elsewhere the injected failures above cover the same)."""
    if os.geteuid() != 0 or not Path("/proc/filesystems").read_text().count("tmpfs"):
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "tiny"
    mount.mkdir()
    if (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", str(mount)],
            capture_output=True,
            check=False,
        ).returncode
        != 0
    ):
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_prowl_tune_on_a_full_disk_keeps_the_plan(tiny_disk: Path) -> None:
    made = run("prowl", "-r", "4", "-p", "3", "--seed", "1", "--json")
    plan = tiny_disk / "plan.json"
    plan.write_text(made.stdout, encoding="utf-8")
    assert len(made.stdout) > 48 * 1024 // 2  # the plan and its .bak cannot both fit
    line = one_line_error(run("prowl", "tune", str(plan), "raise-room", "R3"))
    assert "the disk is full" in line
    assert plan.read_text(encoding="utf-8") == made.stdout
    assert not [p for p in tiny_disk.iterdir() if p.name.endswith(".tmp")]


def test_dungeon_json_into_a_file_on_a_full_disk_is_one_line(tiny_disk: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC), LANG="C.UTF-8", LC_ALL="C.UTF-8")
    with (tiny_disk / "dungeon.json").open("wb") as target:
        proc = subprocess.run(
            [sys.executable, "-m", "kerker", "dungeon", "--seed", "7", "--json"],
            stdout=target,
            stderr=subprocess.PIPE,
            env=env,
            timeout=120,
            check=False,
        )
    assert proc.returncode == 2
    assert proc.stderr.decode() == (
        "kerker: error: cannot write to standard output: No space left on device\n"
    )


# -- bounded reads ---------------------------------------------------------------------------


def test_fifo_device_folder_and_huge_files_are_refused_before_reading(tmp_path: Path) -> None:
    fifo = tmp_path / "t.yaml"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        with pytest.raises(InputFileError, match="not a regular file"):
            read_bytes(path)  # returns at once: a FIFO is never opened
    with pytest.raises(InputFileError, match="is a folder"):
        read_text(tmp_path)
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as f:
        f.truncate(50 * 1024 * 1024)  # sparse: 50 MB without the disk space
    with pytest.raises(RuleDataError, match=r"too large \(50.0 MB; at most 4.0 MB\)"):
        load_yaml_file(huge)


def test_the_cli_refuses_fifos_and_devices_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    folder.mkdir()
    os.mkfifo(folder / "pipe.yaml")
    assert "not a regular file" in one_line_error(run("table", "list", "--tables", str(folder)))
    assert "not a regular file" in one_line_error(run("table", "list", "--tables", "/dev/zero"))
    assert "not a regular file" in one_line_error(run("table", "import", "/dev/zero"))
    assert "not a regular file" in one_line_error(run("prowl", "render", str(folder / "pipe.yaml")))


def test_byte_order_marks_are_read_alike_in_every_file(tmp_path: Path) -> None:
    bom = b"\xef\xbb\xbf"
    tables = tmp_path / "eigen.yaml"
    tables.write_bytes(bom + TABLE.encode())
    shown = run("table", "show", "eigen/ding", "--json", "--tables", str(tables))
    assert shown.returncode == 0, shown.stderr
    csv_file = tmp_path / "t.csv"
    csv_file.write_bytes(bom + b"1-3,Gold\n4-6,Silber\n")
    assert run("table", "import", str(csv_file)).returncode == 0
    plan = run("prowl", "-r", "2", "-p", "2", "--seed", "3", "--json").stdout
    plan_file = tmp_path / "plan.json"
    plan_file.write_bytes(bom + plan.encode())
    assert run("prowl", "render", str(plan_file)).returncode == 0
    factions = tmp_path / "factions.txt"
    factions.write_bytes(bom + b"+Die Gilde\n+Die Wache\n-Die Schatten\n")
    assert (
        run("prowl", "-r", "2", "-p", "2", "--seed", "3", "--factions", str(factions)).returncode
        == 0
    )
    utf16 = tmp_path / "utf16.csv"
    utf16.write_bytes("1-3,Gold\n".encode("utf-16"))
    assert "UTF-16" in one_line_error(run("table", "import", str(utf16)))


def test_deep_nesting_is_refused_before_parsing(tmp_path: Path) -> None:
    deep = tmp_path / "deep.yaml"
    deep.write_text(
        TABLE.replace("text: {de: Zwei, it: Due, en: Two}", "text: " + "[" * 300 + "]" * 300),
        encoding="utf-8",
    )
    for command in ("show", "roll", "odds"):
        line = one_line_error(run("table", command, "eigen/ding", "--tables", str(deep)))
        assert "deep.yaml:13: nested more than 64 levels deep" in line
    linted = run("table", "lint", str(deep))
    assert linted.returncode == 1
    assert linted.stdout == f"{deep}:13:1: nested more than 64 levels deep\n"
    plan = run("prowl", "-r", "2", "-p", "2", "--seed", "3", "--json").stdout
    plan_file = tmp_path / "plan.json"  # a valid plan with one 5000-deep list in it
    plan_file.write_text(
        plan.replace("{", '{"deep": ' + "[" * 5000 + "]" * 5000 + ", ", 1), encoding="utf-8"
    )
    for args in (["render", str(plan_file)], ["tune", str(plan_file), "finish"]):
        assert "nested more than 64 levels deep" in one_line_error(run("prowl", *args))


def test_json_depth_ignores_brackets_in_strings() -> None:
    fileio.check_json_depth(json.dumps({"text": "[" * 500}), "x.json")
    with pytest.raises(InputFileError, match=r"x\.json:2: nested"):
        fileio.check_json_depth("{\n" + "[" * 65 + "]" * 65 + "}", "x.json")


# -- CSV -------------------------------------------------------------------------------------


def test_an_unterminated_quote_is_reported_with_its_line() -> None:
    with pytest.raises(
        RuleDataError,
        match=r"^buch.csv:2: a quote opened on this line is "
        r"never closed$",
    ):
        import_csv('1,Kupfer\n2,"Gold\n3,Silber\n4,Eisen\n', name="t", source_file="buch.csv")
    with pytest.raises(
        RuleDataError,
        match=r"^CSV:1: a quote opened on this line runs over "
        r"the rows up to line 3",
    ):
        import_csv('1;"Gold\n2;Silber\n3;Eisen"\n4;Holz\n', name="t")
    # a quoted text with a line break of its own is still read
    text = import_csv('1-3;"Gold\nund mehr"\n4-6;Silber\n', name="t")
    assert "{de: Gold und mehr}" in text


def test_dice_in_cells_become_rolled_amounts(tmp_path: Path) -> None:
    assert dice_amounts({"de": "2W6 Goldmünzen", "en": "2d6 gold coins"}, "de") == (
        {"de": "{amount} Goldmünzen", "en": "{amount} gold coins"},
        [("amount", "2W6")],
    )
    assert dice_amounts({"de": "Würfle erneut mit W20"}, "de") == (
        {"de": "Würfle erneut mit W20"},
        [],
    )
    csv_file = tmp_path / "beute.csv"
    csv_file.write_text(
        "W6;Beute\n1-3;2W6 Goldmünzen\n4-6;1W6+2 Silber und 2W10 × 100 Kupfer\n", encoding="utf-8"
    )
    folder = tmp_path / "tables"
    made = run("table", "import", str(csv_file), "--out", str(folder / "beute.yaml"))
    assert made.returncode == 0, made.stderr
    for seed in range(1, 30):
        rolled = run(
            "table", "roll", "custom/beute", "--tables", str(folder), "--seed", str(seed), "--json"
        )
        result = json.loads(rolled.stdout)["results"][0]["result"]
        text = result["text"]
        assert "{" not in text and "W" not in text
        assert [e["type"] for e in result["effects"]].count("amount") >= 1
        if "Gold" in text:
            assert text == f"{result['values']['amount']} Goldmünzen"
            assert 2 <= result["values"]["amount"] <= 12
            break
    else:  # pragma: no cover - 29 seeds without a 1-3 on a W6
        raise AssertionError("no gold row rolled")


def test_no_error_escapes_as_something_else() -> None:
    with pytest.raises(KerkerError):
        read_text(Path("/nonexistent/file.yaml"))


def test_lint_says_which_files_it_cannot_read(tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    folder.mkdir()
    os.mkfifo(folder / "pipe.yaml")
    (folder / "ok.yaml").write_text(TABLE, encoding="utf-8")
    with (folder / "huge.yaml").open("wb") as f:
        f.truncate(50 * 1024 * 1024)  # sparse; refused by its size, never read
    proc = run("table", "lint", str(folder), "/dev/null")
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "/dev/null:1:1: is not a regular file (a pipe, device or socket); kerker reads only files",
        f"{folder / 'huge.yaml'}:1:1: larger than 5000000 bytes; not a table file",
        f"{folder / 'pipe.yaml'}:1:1: is not a regular file (a pipe, device or socket); "
        "kerker reads only files",
    ]


# -- long runs: pictures that fit, progress on a terminal ------------------------------------


def test_png_fit_finds_the_largest_scale_within_the_pixel_cap() -> None:
    from kerker.dungeon.files import png_fit
    from kerker.render.png import MAX_PIXELS

    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="3668" height="4872">'
    fitted = png_fit(svg, 1.5)
    assert fitted == 1.49
    assert 3668 * 4872 * fitted**2 <= MAX_PIXELS < 3668 * 4872 * (fitted + 0.01) ** 2
    assert png_fit(svg, 1.0) == 1.0


def test_too_large_pictures_are_fitted_or_refused_before_any_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    from kerker.commands import dungeon as command
    from kerker.dungeon.engine import Params, generate
    from kerker.dungeon.export import to_document
    from kerker.render import png
    from kerker.tables.registry import load_registry

    params = Params(seed=4, levels=1, max_areas=6).checked()
    doc = to_document(generate(params, load_registry()), "en")

    class Batch:
        def __init__(self) -> None:
            self.scale = 1.5
            self.scales: list[float] = []

        def add(self, svg: str, *, width: int = 0, height: int = 0) -> int:
            self.scales.append(self.scale)
            return len(self.scales) - 1

        def results(self) -> list[bytes]:
            return [b"\x89PNG" for _ in self.scales]

    monkeypatch.setattr(png, "MAX_PIXELS", 250_000)
    batch, notes = Batch(), []  # type: ignore[var-annotated]
    written = command.write_files(
        doc, tmp_path / "fit", 4, "en", ["svg", "png"], batch, notes=notes
    )
    assert len(written) == 4 and all(s < 1.5 for s in batch.scales)
    assert batch.scale == 1.5
    assert notes and notes[0].startswith("zufallslabyrinth-4-level1.png: drawn at scale ")
    with pytest.raises(
        KerkerError,
        match=r"zufallslabyrinth-4-level1\.png would have more "
        r"than 250000 pixels at scale 1\.5; a scale of at "
        r"most 0\.",
    ):
        command.write_files(
            doc, tmp_path / "refused", 4, "en", ["svg", "png"], Batch(), fit_png=False
        )
    assert not (tmp_path / "refused").exists()


def test_long_runs_show_progress_on_a_terminal_only(tmp_path: Path) -> None:
    import pty

    args = [
        sys.executable,
        "-m",
        "kerker",
        "dungeon",
        "--seed",
        "2",
        "--max-areas",
        "400",
        "--lang",
        "en",
        "--out",
        str(tmp_path),
        "--format",
        "json",
    ]
    env = dict(os.environ, PYTHONPATH=str(SRC), LANG="C.UTF-8", LC_ALL="C.UTF-8")
    master, slave = pty.openpty()
    proc = subprocess.run(
        args, stdout=subprocess.PIPE, stderr=slave, env=env, timeout=120, check=False
    )
    os.close(slave)
    shown = os.read(master, 4096).decode("utf-8")
    os.close(master)
    assert proc.returncode == 0
    assert "Rolling the dungeon (levels: 1, up to 400 areas a level)" in " ".join(shown.split())
    assert "Drawing and writing the files" in shown
    piped = run(
        "dungeon", "--seed", "2", "--max-areas", "400", "--out", str(tmp_path), "--format", "json"
    )
    assert piped.returncode == 0 and piped.stderr == ""
