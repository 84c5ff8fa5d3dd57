"""``kerker serve``: the web app on uvicorn. The web stack is imported here, inside the
command, so no other command pays for it."""

from __future__ import annotations

from typing import Annotated

import typer

from kerker.cli_support import MessageLangOption, friendly, resolve_language
from kerker.cli_support import cli_translate as _h
from kerker.errors import N_, OptionError
from kerker.i18n import translator

SERVE_HELP = N_(
    "Serve kerker in the browser: dungeons, zone maps, heists, dice and tables, in German, "
    "Italian and English.\n\n"
    "Binds to this computer only (127.0.0.1) unless --host says otherwise.\n\n"
    "Example: kerker serve --open"
)

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MAX_WORKERS = 64
WORKER_DB = "KERKER_SERVE_DB"
"""How ``kerker serve --workers N`` hands the database URL to its worker processes."""


def worker_app() -> object:
    """The app of one worker process of ``kerker serve --workers N`` (uvicorn imports
    this factory in each worker; the database URL comes from :data:`WORKER_DB`)."""
    import os

    from kerker.web import create_app
    from kerker.web.workers import server_gc

    app = create_app(os.environ.get(WORKER_DB) or None)
    server_gc()
    return app


@friendly
def serve_command(
    host: Annotated[
        str,
        typer.Option(
            "--host", help=_h(N_("Address to listen on (default 127.0.0.1: this computer only)."))
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help=_h(N_("Port to listen on.")))] = 8000,
    open_browser: Annotated[
        bool, typer.Option("--open", help=_h(N_("Open the start page in the browser.")))
    ] = False,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            metavar="URL",
            help=_h(
                N_(
                    "The session database: a SQLite file or postgresql://... (default: KERKER_DB, "
                    "else "
                    "the file in your data folder). Several instances on one PostgreSQL serve the "
                    "same "
                    "sessions."
                )
            ),
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            help=_h(
                N_(
                    "Worker processes (default 1). Each serves any session: state lives only "
                    "in the database. On 2 cores: 2."
                )
            ),
        ),
    ] = 1,
    lang: MessageLangOption = None,
) -> None:
    """Run the web app until Ctrl-C; see ``SERVE_HELP``."""
    _ = translator(resolve_language(lang))  # the terminal's lines; the pages choose their own
    if not 1 <= port <= 65535:
        raise OptionError(N_("--port must be between 1 and 65535"))
    if not 1 <= workers <= MAX_WORKERS:
        raise OptionError(N_("--workers must be between 1 and {max}"), max=MAX_WORKERS)
    import os

    import uvicorn

    from kerker.play.store import open_store
    from kerker.web import create_app
    from kerker.web.workers import server_gc
    from kerker.web.workers import usable as workers_usable

    url_db = db or os.environ.get("KERKER_DB") or None
    open_store(url_db).close()  # a database that cannot be used is refused before serving
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else shown}:{port}/"
    print(_("kerker serves at {url} (Ctrl-C stops it)").format(url=url))
    if host not in LOOPBACK:
        print(
            _("Listening on {host}: anyone who can reach this address can use it.").format(
                host=host
            )
        )
    if open_browser:
        import threading
        import webbrowser

        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    try:
        if workers == 1:
            app = create_app(url_db)
            server_gc()
            uvicorn.run(app, host=host, port=port, log_level="warning")
        elif workers_usable():
            from kerker.web.workers import WorkersFailed, run

            try:
                run(host, port, workers, WORKER_DB, str(url_db or ""))
            except WorkersFailed as err:
                raise OptionError(
                    N_("the worker processes keep stopping as they start (exit code {code})"),
                    code=err.code,
                ) from None
        else:
            os.environ[WORKER_DB] = str(url_db or "")
            uvicorn.run(
                "kerker.commands.serve:worker_app",
                factory=True,
                host=host,
                port=port,
                workers=workers,
                log_level="warning",
            )
    except OSError as err:
        raise OptionError(
            N_("cannot listen on {host}:{port}: {reason}"),
            host=host,
            port=port,
            reason=err.strerror or str(err),
        ) from None
