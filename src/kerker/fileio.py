"""Files in and out, safely: bounded reads of regular files, atomic writes.

Reading (:func:`read_bytes`, :func:`read_text`): the file's type and size are checked
*before* anything is read -- a FIFO, ``/dev/zero`` or a folder is refused at once, a file
over the cap is refused without loading it -- and text is UTF-8 with an optional byte order
mark, the same for every kind of file kerker reads (tables, CSV, plans, faction lists).
:func:`check_json_depth` and :func:`check_yaml_depth` refuse nesting deeper than a cap
before a recursive parser or model builder sees it.

Writing (:func:`write_atomic`): the data goes to a temporary file in the target's folder,
is flushed to disk and then renamed over the target, so a full disk or a kill leaves the old
file (or none), never a truncated one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from pathlib import Path

from kerker.errors import N_, KerkerError, RuleDataError, Word

MAX_INPUT_BYTES = 10 * 1024 * 1024
"""Default cap of one input file (the largest shipped rule file has 35 kB)."""

MAX_DEPTH = 64
"""Default cap of nesting (lists and mappings inside each other) of a YAML or JSON file;
kerker's own files nest at most 8 deep."""


class InputFileError(RuleDataError):
    """An input file that is not a readable regular file of bounded size and depth (file
    and, where known, line: ``file:line: message``)."""

    code = "input_file"


class WriteError(KerkerError):
    """An output file that cannot be written."""

    code = "write"


def os_reason(exc: OSError) -> Word:
    """Why a file could not be read or written, as a word of the catalogs (the system's
    own message would bring another language into the line)."""
    if isinstance(exc, FileNotFoundError):
        return Word(N_("it or its folder does not exist"))
    if isinstance(exc, PermissionError):
        return Word(N_("permission denied"))
    if isinstance(exc, IsADirectoryError):
        return Word(N_("it is a folder"))
    if isinstance(exc, NotADirectoryError | FileExistsError):
        return Word(N_("a part of the path is a file, not a folder"))
    if exc.errno == errno.ENOSPC:
        return Word(N_("the disk is full"))
    return Word(N_("the system refused it"))


def _size_text(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MB"
    if size >= 1024:
        return f"{size / 1024:.1f} kB"
    return f"{size} B"


CANNOT_READ = N_("cannot read the file: {reason}")


def check_regular(
    path: Path, where: str | None = None, cannot_read: str = CANNOT_READ
) -> os.stat_result:
    """The ``stat`` of ``path`` if it is a regular file (symlinks followed).

    Refuses missing files, folders, FIFOs, devices and sockets with :class:`InputFileError`
    (``cannot_read``, a template with ``{reason}``, says what could not be read).
    """
    name = str(path) if where is None else where
    try:
        info = os.stat(path)
    except OSError as exc:
        raise InputFileError(cannot_read, file=name, reason=os_reason(exc)) from None
    if stat.S_ISDIR(info.st_mode):
        raise InputFileError(N_("is a folder, not a file"), file=name)
    if not stat.S_ISREG(info.st_mode):
        raise InputFileError(
            N_("is not a regular file (a pipe, device or socket); kerker reads only files"),
            file=name,
        )
    return info


def read_bytes(
    path: Path,
    *,
    max_bytes: int = MAX_INPUT_BYTES,
    where: str | None = None,
    cannot_read: str = CANNOT_READ,
) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes`` of them.

    Type and size are checked before reading (see :func:`check_regular`); a file that grows
    past the cap while it is read is refused too. Never blocks on a FIFO.
    """
    name = str(path) if where is None else where
    info = check_regular(path, name, cannot_read)
    if info.st_size > max_bytes:
        raise InputFileError(
            N_("the file is too large ({size}; at most {max})"),
            file=name,
            size=_size_text(info.st_size),
            max=_size_text(max_bytes),
        )
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputFileError(cannot_read, file=name, reason=os_reason(exc)) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced between stat and open
            raise InputFileError(
                N_("is not a regular file (a pipe, device or socket); kerker reads only files"),
                file=name,
            )
        chunks: list[bytes] = []
        left = max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as exc:
        raise InputFileError(cannot_read, file=name, reason=os_reason(exc)) from None
    finally:
        os.close(fd)
    raw = b"".join(chunks)
    if len(raw) > max_bytes:
        raise InputFileError(
            N_("the file is too large ({size}; at most {max})"),
            file=name,
            size=_size_text(len(raw)),
            max=_size_text(max_bytes),
        )
    return raw


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def decode_text(raw: bytes, where: str) -> str:
    """UTF-8 bytes as text, a leading byte order mark dropped; one rule for every file.

    Refuses UTF-16 (saved by some spreadsheet programs) and other encodings with the byte
    offset where the text stops being UTF-8.
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    elif raw.startswith(_UTF16_BOMS):
        raise InputFileError(N_("the file is UTF-16 text; save it as UTF-8"), file=where)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputFileError(
            N_("not UTF-8 text (byte {byte}); save the file as UTF-8"),
            file=where,
            line=line,
            byte=exc.start + 1,
        ) from None


def read_text(
    path: Path,
    *,
    max_bytes: int = MAX_INPUT_BYTES,
    where: str | None = None,
    cannot_read: str = CANNOT_READ,
) -> str:
    """The text of a UTF-8 file (BOM dropped), refusing what :func:`read_bytes` and
    :func:`decode_text` refuse."""
    name = str(path) if where is None else where
    raw = read_bytes(path, max_bytes=max_bytes, where=name, cannot_read=cannot_read)
    return decode_text(raw, name)


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_JSON_BRACKET = re.compile(r"[\[\]{}]")


def check_json_depth(text: str, where: str, max_depth: int = MAX_DEPTH) -> None:
    """Refuse JSON text that nests lists and objects more than ``max_depth`` deep (before
    ``json.loads`` or a model recurses into it). Brackets inside strings do not count."""
    if text.count("[") + text.count("{") <= max_depth:
        return
    depth = 0
    for match in _JSON_BRACKET.finditer(_JSON_STRING.sub('""', text)):
        if match.group() in "[{":
            depth += 1
            if depth > max_depth:
                line = text.count("\n", 0, match.start()) + 1
                raise InputFileError(
                    N_("nested more than {max} levels deep"), file=where, line=line, max=max_depth
                )
        else:
            depth -= 1


def check_yaml_depth(text: str, where: str, max_depth: int = MAX_DEPTH) -> None:
    """Refuse YAML text that nests more than ``max_depth`` deep, from the parser's event
    stream (flat, no recursion) before anything is composed. Syntax errors are left to the
    loader, which reports them with their line."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.events import (
        MappingEndEvent,
        MappingStartEvent,
        SequenceEndEvent,
        SequenceStartEvent,
    )

    depth = 0
    try:
        for event in YAML(typ="safe").parse(text):
            if isinstance(event, (MappingStartEvent, SequenceStartEvent)):
                depth += 1
                if depth > max_depth:
                    mark = event.start_mark
                    line = None if mark is None else mark.line + 1
                    raise InputFileError(
                        N_("nested more than {max} levels deep"),
                        file=where,
                        line=line,
                        max=max_depth,
                    )
            elif isinstance(event, (MappingEndEvent, SequenceEndEvent)):
                depth -= 1
    except (YAMLError, ValueError, TypeError):
        return


def write_atomic(path: Path, data: str | bytes, *, mode: int | None = None) -> None:
    """Write ``path`` all or nothing: text as UTF-8 with ``\\n`` line ends, or bytes.

    The data goes to a hidden temporary file in the same folder (created if missing), is
    flushed to disk and renamed over ``path``; on any failure the temporary file is removed
    and the old ``path`` (if any) is untouched. ``mode`` defaults to the old file's
    permissions, else those a new file gets (0o666 less the umask). Refuses an empty path;
    failures raise :class:`WriteError`.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if str(path).strip() in ("", "."):
        raise WriteError(N_("cannot write {path}: {reason}"), path=str(path), reason="no file name")
    temp: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        keep: int | None = mode
        if keep is None:
            try:
                keep = stat.S_IMODE(os.stat(path).st_mode)
            except FileNotFoundError:
                keep = None  # a new file: 0o666 less the umask, as for any new file
        for _attempt in range(100):
            temp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
            try:
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
                break
            except FileExistsError:
                continue
        else:  # pragma: no cover - 100 random names taken
            raise FileExistsError(f"no free temporary name beside {path}")
        try:
            if keep is not None:
                os.fchmod(fd, keep)
            view = memoryview(raw)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
        temp = None
    except OSError as exc:
        raise WriteError(
            N_("cannot write {path}: {reason}"), path=str(path), reason=os_reason(exc)
        ) from None
    finally:
        if temp is not None:
            with contextlib.suppress(OSError):
                temp.unlink()
