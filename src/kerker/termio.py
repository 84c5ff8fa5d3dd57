"""The terminal edge of the command line: safe text on any stdout, and clean failures.

- :func:`guard_streams` rewraps ``sys.stdout`` and ``sys.stderr`` so that a write that fails
  (``/dev/full``, a full disk under ``> file``) raises :class:`OutputError` -- a
  :class:`~kerker.errors.KerkerError`, so the command prints one line and exits 2 -- and so
  that characters the stream's encoding lacks become readable replacements with the same
  meaning (``×`` -> ``x``, ``Fuß`` -> ``Fuss``, ``—`` -> ``-``) instead of a
  ``UnicodeEncodeError``. Terminal control characters in printed text (``ESC [2J``, BEL,
  a bare carriage return, C1 controls, bidirectional overrides) are shown as ``\\x1b``-style
  escapes; only newline and tab pass.
- :func:`console` is the one Rich console of the command line: Rich's own styling reaches the
  terminal, while user text inside it goes through :func:`rich_text` (markup escaped, control
  characters made visible).
- :func:`run_guarded` runs the command and makes sure even ``--help`` or the final flush of
  a full stdout ends in one line and exit status 2, never a traceback.

Kept free of heavy imports: ``kerker roll`` loads this module.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import io
import os
import re
import sys
from collections.abc import Callable
from typing import IO, Any, TextIO

from kerker.errors import N_, KerkerError, Word

EXIT_USER_ERROR = 2
HANDLER = "kerker-readable"


class OutputError(KerkerError):
    """Standard output or standard error cannot be written (full disk, closed pipe)."""

    code = "output"


# -- control characters -------------------------------------------------------------------

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every terminal control character shown as an escape (``\\x1b``).

    Newline and tab pass unchanged; nothing else that could move the cursor, clear the
    screen, ring the bell or reorder the line reaches the terminal.

    >>> visible("a\\x1b[2Jb\\x07")
    'a\\\\x1b[2Jb\\\\x07'
    """
    return _CONTROL.sub(_escape_char, text) if _CONTROL.search(text) else text


def rich_text(text: object) -> str:
    """User text for a Rich renderable: control characters visible, markup escaped.

    ``[bold]`` stays the five characters it is and ``[/]`` no longer breaks the table.
    """
    from rich.markup import escape

    return escape(visible(str(text)))


# -- readable replacements for encodings without the character ------------------------------

_REPLACEMENTS = {
    "ß": "ss",
    "ẞ": "SS",
    "ä": "ae",
    "ö": "oe",
    "ü": "ue",
    "Ä": "Ae",
    "Ö": "Oe",
    "Ü": "Ue",
    "×": "x",
    "÷": "/",
    "−": "-",
    "–": "-",
    "—": "-",
    "‒": "-",
    "―": "-",
    "‐": "-",
    "…": "...",
    "„": '"',
    "“": '"',
    "”": '"',
    "«": '"',
    "»": '"',
    "‚": "'",
    "‘": "'",
    "’": "'",
    "‹": "'",
    "›": "'",
    "≥": ">=",
    "≤": "<=",
    "≠": "!=",
    "±": "+/-",
    "→": "->",
    "←": "<-",
    "↑": "^",
    "↓": "v",
    "↔": "<->",
    "·": ".",
    "•": "*",
    "°": " deg",
    "½": "1/2",
    "¼": "1/4",
    "¾": "3/4",
    "€": "EUR",
    "£": "GBP",
    "\u00a0": " ",
    "\u202f": " ",
    "\u2009": " ",
    "✓": "v",
    "✗": "x",
    "█": "#",
    "▌": "#",
    "▐": "#",
    "▏": "|",
    "▎": "|",
    "▍": "|",
    "▋": "#",
    "▊": "#",
    "▉": "#",
    "■": "#",
    "□": "o",
    "▪": "*",
    "○": "o",
    "●": "*",
    "│": "|",
    "─": "-",
    "┃": "|",
    "━": "-",
    "═": "=",
    "║": "|",
}


def readable(char: str, encoding: str) -> str:
    """The closest text to ``char`` that ``encoding`` can write (``?`` when nothing fits)."""
    import unicodedata

    candidates = [_REPLACEMENTS.get(char, "")]
    decomposed = unicodedata.normalize("NFKD", char)
    candidates.append("".join(c for c in decomposed if not unicodedata.combining(c)))
    for candidate in candidates:
        if not candidate:
            continue
        try:
            candidate.encode(encoding)
        except (UnicodeEncodeError, LookupError):
            continue
        return candidate
    if "\u2500" <= char <= "\u257f":  # box drawing: Rich's tables on an ASCII terminal
        return "+"
    return "?"


def _handler(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start : exc.end]
    return "".join(readable(c, exc.encoding) for c in text), exc.end


codecs.register_error(HANDLER, _handler)


def is_utf8(stream: Any) -> bool:
    """Whether ``stream`` writes UTF-8 (JSON then needs no ``\\u`` escapes)."""
    encoding = str(getattr(stream, "encoding", "") or "").lower().replace("_", "-")
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def ascii_json(text: str) -> str:
    """JSON text with every non-ASCII character as a ``\\u`` escape: the same JSON data,
    readable on any terminal (outside strings JSON has only ASCII)."""

    def escape(match: re.Match[str]) -> str:
        code = ord(match.group())
        if code < 0x10000:
            return f"\\u{code:04x}"
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"

    return _NON_ASCII.sub(escape, text)


def print_json(text: str) -> None:
    """Print JSON text (ending in a newline if it has none): as UTF-8 when stdout takes it,
    else with ``\\u`` escapes (the same data, never a replacement character). Control
    characters the JSON writer left raw (C1, bidirectional overrides) become ``\\u``
    escapes too: valid JSON with the same data, harmless on a terminal."""
    if _CONTROL.search(text):
        text = _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    if not is_utf8(sys.stdout):
        text = ascii_json(text)
    text = text if text.endswith("\n") else text + "\n"
    stream = sys.stdout
    if isinstance(stream, GuardedText):
        stream.write_styled(text)  # already safe: escapes, not control characters
    else:
        stream.write(text)


def print_svg(text: str) -> None:
    """Print SVG text: as it is on a UTF-8 stdout, else with character references
    (``&#xfc;``) for what the encoding lacks -- the same drawing, not a replacement."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    if not is_utf8(sys.stdout):
        with contextlib.suppress(LookupError):
            text = text.encode(encoding, "xmlcharrefreplace").decode(encoding)
    sys.stdout.write(text)


# -- guarded streams ------------------------------------------------------------------------


def _output_error(exc: OSError, name: str) -> OutputError:
    reason = exc.strerror or str(exc)
    if name == "stdout":
        return OutputError(N_("cannot write to standard output: {reason}"), reason=reason)
    return OutputError(N_("cannot write to standard error: {reason}"), reason=reason)


class GuardedText(io.TextIOWrapper):
    """A text stream whose failures are :class:`OutputError` and whose text is safe.

    ``write`` shows control characters as escapes; ``write_styled`` (Rich) passes them.
    """

    def __init__(
        self,
        buffer: IO[bytes],
        name: str,
        *,
        encoding: str,
        line_buffering: bool,
        flush_each: bool = False,
    ) -> None:
        super().__init__(
            buffer,
            encoding=encoding,
            errors=HANDLER,
            line_buffering=line_buffering,
            write_through=True,
        )
        self.stream_name = name
        self.failed = False
        self.flush_each = flush_each

    def write_styled(self, text: str) -> int:
        """Write text as it is (Rich's escape sequences), with the same failure handling."""
        try:
            written = super().write(text)
            if self.flush_each:
                super().flush()
            return written
        except OSError as exc:
            self.failed = True
            if exc.errno == errno.EPIPE:
                raise  # the reader left (``| head``): Click ends quietly
            raise _output_error(exc, self.stream_name) from None

    def write(self, text: str) -> int:
        return self.write_styled(visible(text))

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as exc:
            self.failed = True
            if exc.errno == errno.EPIPE:
                raise
            raise _output_error(exc, self.stream_name) from None


def _guard(stream: Any, name: str) -> Any:
    if isinstance(stream, GuardedText) or not isinstance(stream, io.TextIOWrapper):
        return stream
    with contextlib.suppress(OSError, ValueError):
        stream.flush()
    buffer = stream.buffer
    unbuffered = isinstance(buffer, io.RawIOBase)
    if unbuffered:
        # PYTHONUNBUFFERED: the text layer sits on the raw file, whose short writes (a disk
        # filling up) it ignores -- a truncated file and exit 0. A buffered writer retries
        # the rest and raises; flushing after each write keeps the stream unbuffered.
        buffer = io.BufferedWriter(buffer)
    return GuardedText(
        buffer,
        name,
        encoding=stream.encoding,
        line_buffering=stream.line_buffering,
        flush_each=unbuffered,
    )


class ClosedStream(io.TextIOBase):
    """Stands for a standard stream that was closed before kerker started (``>&-``):
    writing to it is an :class:`OutputError` for stdout, and nothing for stderr (there is
    nowhere to say anything; the exit status still tells)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.stream_name = name
        self.failed = False

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        if self.stream_name == "stdout" and text:
            self.failed = True
            raise OutputError(
                N_("cannot write to standard output: {reason}"), reason=Word(N_("it is closed"))
            )
        return len(text)

    def write_styled(self, text: str) -> int:
        """As :meth:`write` (Rich writes here)."""
        return self.write(text)


def guard_streams() -> None:
    """Replace ``sys.stdout`` and ``sys.stderr`` by :class:`GuardedText` wrappers (or a
    :class:`ClosedStream` where the stream was closed)."""
    sys.stdout = _guard(sys.stdout, "stdout") if sys.stdout is not None else ClosedStream("stdout")
    sys.stderr = _guard(sys.stderr, "stderr") if sys.stderr is not None else ClosedStream("stderr")


class _StyledStdout:
    """The file Rich writes to: stdout as it is when :func:`console` is called, with Rich's
    escape sequences passed through and failures turned into :class:`OutputError`."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.encoding = getattr(stream, "encoding", "utf-8")

    def write(self, text: str) -> int:
        if isinstance(self._stream, GuardedText | ClosedStream):
            return self._stream.write_styled(text)
        return self._stream.write(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()


def fit_encoding(text: str, encoding: str) -> str:
    """``text`` with what ``encoding`` lacks replaced as :func:`readable` does."""
    try:
        return text.encode(encoding, HANDLER).decode(encoding)
    except LookupError:
        return text


def console(**options: Any) -> Any:
    """A Rich console on stdout (no highlighting), for renderables whose user text went
    through :func:`rich_text`.

    On a stream that is not UTF-8 every string is given its readable replacements before
    Rich measures it, so ``hoechstens`` still fits its column.
    """
    from rich.console import Console
    from rich.text import Text

    stream = _StyledStdout(sys.stdout)
    encoding = stream.encoding or "utf-8"

    class _Console(Console):
        def render_str(self, text: str, **kwargs: Any) -> Text:
            return super().render_str(fit_encoding(text, encoding), **kwargs)

    options.setdefault("highlight", False)
    if is_utf8(stream):
        return Console(file=stream, **options)  # type: ignore[arg-type]
    return _Console(file=stream, **options)  # type: ignore[arg-type]


def _error_line(err: KerkerError) -> str:
    from kerker.cli_support import cli_language
    from kerker.i18n import translator

    _ = translator(cli_language())
    return f"kerker: {_('error')}: {err.message(_)}"


def _silence(fd: int) -> None:
    """Point ``fd`` at /dev/null so the interpreter's last flush cannot fail again."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except OSError:
        pass


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, KerkerError, ValueError):
        _silence(2)


def run_guarded(command: Callable[[], object]) -> None:
    """Run ``command`` (the Click app) and exit: its own status, or 2 with one line on
    stderr when stdout could not be written -- also during ``--help`` and the last flush."""
    code: Any = 0
    try:
        command()
    except SystemExit as stop:
        code = stop.code
    except KerkerError as err:  # raised outside a command (--help, option parsing)
        _say(_error_line(err))
        code = EXIT_USER_ERROR
    except BrokenPipeError:
        code = EXIT_USER_ERROR
    try:
        sys.stdout.flush()
    except OutputError as err:
        if code in (0, None):
            _say(_error_line(err))
            code = EXIT_USER_ERROR
    except (OSError, ValueError):
        code = code or EXIT_USER_ERROR
    if getattr(sys.stdout, "failed", False):
        # What could not be written is dropped; a failed output is a failed command.
        if isinstance(sys.stdout, GuardedText):
            _silence(1)
        if code in (0, 1, None):
            code = EXIT_USER_ERROR
    sys.exit(code)
