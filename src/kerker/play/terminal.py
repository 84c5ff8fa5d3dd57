"""The interactive loop of ``kerker play S``: the map preview, the numbered open exits and
single keys for each step; every step is saved at once (the store appends it), so leaving
with ``q`` or closing the terminal loses nothing and ``kerker play S`` resumes there.

Keys: ``n`` open the next exit (the procedure's walk), ``o`` open exit number ...,
``u`` undo, ``y`` redo, ``r`` reroll the exit opened last, ``t`` a note, ``c`` an HPR
check, ``d`` dice, ``p`` real dice for the doors on / off (each table roll behind a door is
then asked for, "W20 – Gangbreite: "), ``s`` search an area (or one wall), ``g`` take a
treasure, ``j`` the journal, ``v`` GM / player view (a session without a referee has only the
players'), ``q`` quit, ``?`` help.
On a terminal the keys act at once (cbreak mode); from a pipe they are read one by one.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import IO, Any

from kerker.errors import N_, KerkerError
from kerker.i18n import translator
from kerker.play.api import Play
from kerker.play.session import PlayState
from kerker.play.store import ConflictError

MAX_LINE = 500
HELP = N_(
    "n next exit · o open number · u undo · y redo · r reroll last · t note · "
    "c check · d dice · p real dice on/off · s search · g take treasure · j journal · "
    "v GM/player view · q quit"
)


class CalledOff(KerkerError):
    """The player stopped entering the dice of a door: nothing was written."""

    code = "called_off"


def asker(keys: _Keys, out: Any, lang: str) -> Any:
    """The ``ask`` of an open with real dice: prompts each table roll behind the door with
    its dice and the table's title in ``lang`` ("W20 – Gangbreite: "), asks again after a
    value the dice cannot show, and calls the open off (:class:`CalledOff`) on an empty
    line or the end of input."""
    from kerker.dice.entered import EnteredDiceError, check_faces, plain_sides
    from kerker.tables.model import pick_text

    _ = translator(lang)

    def ask(table: Any, dice: str, count: int, number: int) -> list[int]:
        title = str(pick_text(table.title, lang) or table.id)
        sides = plain_sides(dice) or []
        while True:
            answer = keys.line(f"{dice} – {title}: ")
            if not answer or not answer.strip():
                raise CalledOff(N_("called off: nothing was opened"))
            parts = answer.replace(",", " ").split()
            if not all(p.isdigit() and len(p) < 6 for p in parts):
                out.print(_("Dice entered are whole numbers."), markup=False)
                continue
            faces = [int(p) for p in parts]
            if len(faces) != count:
                out.print(
                    _("{expr} needs {n} dice, {m} entered").format(
                        expr=dice, n=count, m=len(faces)
                    ),
                    markup=False,
                )
                continue
            try:
                check_faces(sides, faces)
            except EnteredDiceError as err:
                out.print(err.message(_), markup=False)
                continue
            return faces

    return ask


class _Keys:
    """Single keys and short lines from ``stream`` (cbreak mode on a terminal)."""

    def __init__(self, stream: IO[str], out: IO[str]) -> None:
        self.stream = stream
        self.out = out

    @contextlib.contextmanager
    def raw(self) -> Iterator[None]:
        """cbreak mode while the loop runs, restored after (also on errors)."""
        try:
            fd = self.stream.fileno()
            tty_in = os.isatty(fd)
        except (AttributeError, OSError, ValueError):
            tty_in = False
        if not tty_in:
            yield
            return
        import termios
        import tty

        saved = termios.tcgetattr(fd)
        try:
            tty.setcbreak(fd)
            yield
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)

    def key(self) -> str:
        """One key ("" at the end of input)."""
        return self.stream.read(1)

    def line(self, prompt: str) -> str | None:
        """A line typed after ``prompt`` (echoed; backspace works); None at end of input."""
        self.out.write(prompt)
        self.out.flush()
        chars: list[str] = []
        while True:
            ch = self.stream.read(1)
            if ch == "":
                return None if not chars else "".join(chars)
            if ch in ("\r", "\n"):
                self.out.write("\n")
                self.out.flush()
                return "".join(chars)
            if ch in ("\x7f", "\b"):
                if chars:
                    chars.pop()
                    self.out.write("\b \b")
            elif ch == "\x1b":
                self.out.write("\n")
                return ""
            elif ch.isprintable() and len(chars) < MAX_LINE:
                chars.append(ch)
                self.out.write(ch)
            self.out.flush()


def _pick(play: Play, keys: _Keys, out: Any, _: Any) -> str | None:
    infos = play.sessions()
    if not infos:
        out.print(_("No sessions yet: kerker play new starts one."))
        return None
    for n, info in enumerate(infos[:20], 1):
        name = "".join(ch if ch.isprintable() else "?" for ch in info.name)
        out.print(
            f"{n:>3}. {info.id}  {info.rules}  {_('seed')} {info.seed}  {name}",
            markup=False,
            highlight=False,
        )
    answer = keys.line(_("Session number (Enter: 1): "))
    if answer is None:
        return None
    answer = answer.strip() or "1"
    if not answer.isdigit() or not 1 <= int(answer) <= min(20, len(infos)):
        out.print(_("No such session."), markup=False)
        return None
    return infos[int(answer) - 1].id


def run_loop(
    play: Play,
    ref: str | None,
    lang: str | None,
    stream: IO[str],
    stdout: IO[str],
    list_lang: str = "en",
) -> None:
    """Play session ``ref`` (or one picked from the list) until ``q`` or the end of input.

    The session speaks ``lang``, else its rules' language; the list to pick from speaks
    ``lang``, else ``list_lang`` (the command line's language). Errors of a step (an exit
    that is not open, a die that cannot show a value) are shown in one line and the loop
    goes on; every step done is already saved."""
    from rich.console import Console

    from kerker.play.journal import journal_lines, journal_md, plain_text
    from kerker.play.views import exit_lines, rules_language, summary
    from kerker.play.wallnames import read_wall

    console = Console(file=stdout, highlight=False, soft_wrap=True)
    keys = _Keys(stream, stdout)
    base = translator(lang or list_lang)
    with keys.raw():
        if ref is None:
            ref = _pick(play, keys, console, base)
            if ref is None:
                return
        state = play.state(ref)
        code = lang or rules_language(state)
        _ = translator(code)
        view = "player"
        real_dice = False
        last: list[str] = []

        def draw(current: PlayState) -> None:
            console.print(summary(current, code, view), markup=False)
            for line in last:
                console.print(line, markup=False)
            console.print(
                _("Session {id}, step {seq}, {view} view. {help}").format(
                    id=current.info.id,
                    seq=current.seq,
                    view=_("GM") if view == "gm" else _("player"),
                    help=_(HELP),
                ),
                markup=False,
            )

        draw(state)
        while True:
            key = keys.key()
            if key in ("", "q", "\x04"):
                console.print(
                    _("Saved. kerker play {id} goes on from here.").format(id=state.info.id),
                    markup=False,
                )
                return
            fields: dict[str, Any] = {}
            kind = None
            if key == "n":
                kind, fields = "open", {"exit": "next"}
            elif key == "o":
                answer = keys.line(_("Exit number: "))
                if not answer:
                    continue
                kind, fields = "open", {"exit": answer.strip()}
            elif key == "u":
                kind = "undo"
            elif key == "y":
                kind = "redo"
            elif key == "r":
                kind, fields = "reroll", {"exit": "last"}
            elif key == "t":
                text = keys.line(_("Note (Enter alone: none): "))
                if not text:
                    continue
                area = keys.line(_("On area number (Enter: the session): "))
                kind, fields = "note", {"text": text}
                if area and area.strip().isdigit():
                    fields["area"] = int(area)
            elif key == "c":
                answer = keys.line(_("Check value and modifier (e.g. 12 -2): "))
                parts = (answer or "").split()
                if not parts:
                    continue
                try:
                    fields = {
                        "value": int(parts[0]),
                        "modifier": int(parts[1]) if len(parts) > 1 else 0,
                        "secret": view == "gm",
                    }
                except ValueError:
                    console.print(_("A check takes whole numbers."), markup=False)
                    continue
                kind = "check"
            elif key == "d":
                answer = keys.line(_("Dice (e.g. d20, or d20: 12 for real dice): "))
                if not answer:
                    continue
                expr, _sep, given = answer.partition(":")
                kind, fields = "roll", {"expr": expr.strip()}
                if given.strip():
                    faces = given.replace(",", " ").split()
                    if not all(f.lstrip("-").isdigit() for f in faces):
                        console.print(_("Dice entered are whole numbers."), markup=False)
                        continue
                    fields["entered"] = [int(f) for f in faces]
            elif key == "p":
                real_dice = not real_dice
                console.print(
                    _("Real dice for the doors: on (each table roll is asked for).")
                    if real_dice
                    else _("Real dice for the doors: off (kerker rolls)."),
                    markup=False,
                )
                continue
            elif key == "s":
                answer = keys.line(_("Search area number, and a wall n/e/s/w (e.g. 4 or 4 n): "))
                parts = (answer or "").split()
                if not parts:
                    continue
                if not parts[0].isdigit() or len(parts) > 2:
                    console.print(_("A search takes an area number and a wall."), markup=False)
                    continue
                kind, fields = "search", {"area": int(parts[0])}
                if len(parts) > 1:
                    try:
                        fields["side"] = read_wall(parts[1], code)
                    except KerkerError as err:
                        console.print(_("error") + ": " + err.message(_), markup=False)
                        continue
            elif key == "g":
                answer = keys.line(_("Take treasure: area number, and which (e.g. 4 or 4 2): "))
                parts = (answer or "").split()
                if not parts:
                    continue
                if not all(p.isdigit() for p in parts) or len(parts) > 2:
                    console.print(_("Taking treasure takes whole numbers."), markup=False)
                    continue
                kind, fields = "take", {"area": int(parts[0])}
                if len(parts) > 1:
                    fields["item"] = int(parts[1])
            elif key == "j":
                tables = state.registry or play.registry
                console.print(plain_text(journal_md(state, tables, code, view)), markup=False)
                continue
            elif key == "v":
                if not state.info.referee:
                    console.print(
                        _("Without a game master there is only the players' view."),
                        markup=False,
                    )
                    continue
                view = "gm" if view == "player" else "player"
                draw(state)
                continue
            elif key == "?":
                console.print(_(HELP), markup=False)
                continue
            else:
                continue
            if real_dice and kind in ("open", "reroll"):
                fields["ask"] = asker(keys, console, code)
            try:
                state = play.act(state.info.id, kind, expected=state.seq, **fields)
                tables = state.registry or play.registry
                last = plain_text(
                    "\n".join(journal_lines(state, tables, code, view, [state.events[-1]]))
                ).split("\n")
            except ConflictError as err:
                console.print(err.message(_), markup=False)
                state = err.state or play.state(state.info.id)
                last = []
            except KerkerError as err:
                console.print(_("error") + ": " + err.message(_), markup=False)
                continue
            draw(state)
            if not exit_lines(state, "gm", _):
                console.print(_("Nothing is open any more: the dungeon is explored."), markup=False)
