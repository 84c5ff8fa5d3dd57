"""The ASGI application: pages (server-rendered, usable without JavaScript) and the JSON API.

Every route validates its input, makes one library call through :mod:`kerker.web.services`
and renders. Errors are answers, never crashes: a :class:`~kerker.errors.KerkerError` is a
400 with its one-line message in the request's language, a malformed request a 422 with
the field named, an unknown page a 404; the API answers JSON ``{"error", "message"}``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode, urlsplit

from fastapi import Body, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.exceptions import HTTPException as StarletteHTTPException

from kerker import __version__
from kerker.errors import N_, KerkerError, OptionError, Word
from kerker.i18n import LANGUAGES, dice_text
from kerker.web import lang as weblang
from kerker.web import services

HERE = Path(__file__).resolve().parent
MAX_BODY = 256 * 1024
"""Largest request body the app reads (uploads included)."""

LANGUAGE_NAMES = {"de": "Deutsch", "it": "Italiano", "en": "English"}
RULE_SETS = ("zufallslabyrinth", "scatola-bianca")
RULE_NAMES = {
    "zufallslabyrinth": "Zufallslabyrinth",
    "scatola-bianca": "La Scatola Bianca",
    "zonenkarten": "Zonenkarten",
    "hpr": "Würfelei (HPR)",
    "mazeprowl": "Mazeprowl",
}


def _percent(value: Fraction, lang: str) -> str:
    text = f"{float(value * 100):.2f}"
    return (text.replace(".", ",") if lang in ("de", "it") else text) + " %"


def _decimal(value: Fraction, lang: str) -> str:
    text = f"{float(value):.2f}".rstrip("0").rstrip(".")
    return text.replace(".", ",") if lang in ("de", "it") else text


def _fraction(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value)


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["languages"] = LANGUAGES
    env.globals["language_names"] = LANGUAGE_NAMES
    env.globals["version"] = __version__
    env.globals["rule_names"] = RULE_NAMES
    env.globals["dungeon_rules"] = RULE_SETS
    env.filters["percent"] = lambda v: _percent(v, weblang.current.get())
    env.filters["fraction"] = _fraction
    # A table's stored die (W20 in seed 000's tables) the reader's way: d20 in it and en.
    env.filters["dice"] = lambda v: dice_text(str(v), weblang.current.get())
    env.filters["share"] = lambda part, whole: f"{float(part / whole * 100):.1f}" if whole else "0"
    env.filters["decimal"] = lambda v: _decimal(v, weblang.current.get())
    env.filters["markdown"] = _markdown
    env.filters["rule_text"] = _rule_text
    env.globals["session_title"] = session_title
    return env


def session_title(info: Any, doc: Mapping[str, Any] | None = None) -> str:
    """What a play session is called on its pages, in the current request's language: its
    name, else as the start page names it, "Seed 7 – Zufallslabyrinth", with the count of
    the areas of ``doc`` (the page's document: what that view shows) when given."""
    from kerker.dungeon.area_count import area_count_text

    if info.name:
        return str(info.name)
    _ = weblang.gettext()
    parts = [_("Seed {seed}").format(seed=info.seed), RULE_NAMES.get(info.rules, info.rules)]
    if doc is not None:
        areas = [a for lv in doc.get("levels", ()) for a in lv.get("areas", ())]
        parts.append(area_count_text(areas, _))
    return " – ".join(parts)


def _rule_text(seed: object) -> str:
    """A table's source file as the reader names it: "Regeltext 000", "testo 001", "rule
    text 004" for a shipped rule text (``000_e7a8….txt``); any other source as it is."""
    import re

    found = re.match(r"(\d{3})_[0-9a-f]+\.txt$", str(seed))
    if found is None:
        return str(seed)
    return weblang.gettext()(N_("rule text {number}")).format(number=found.group(1))


def _markdown(text: str) -> Markup:
    """kerker's own Markdown (a prowl sheet, a zone-map key) as escaped HTML for a page."""
    from kerker.render.md_html import markdown_html

    return Markup(markdown_html(str(text)))


class _Pages:
    """Renders templates in the current request's language."""

    def __init__(self) -> None:
        self.env = _environment()

    def render(
        self, request: Request, name: str, status: int = 200, **context: Any
    ) -> HTMLResponse:
        code = weblang.current.get()
        query = dict(request.query_params)

        def lang_url(other: str) -> str:
            return request.url.path + "?" + urlencode({**query, "lang": other})

        html = self.env.get_template(name).render(
            _=weblang.gettext(), lang=code, lang_url=lang_url, path=request.url.path, **context
        )
        response = HTMLResponse(html, status_code=status)
        return response


class BodyTooLarge(KerkerError):
    """A request body (chunked or not) grew past :data:`MAX_BODY`."""

    code = "too_large"


class BodyCap:
    """ASGI middleware that counts the bytes of a request body as they arrive and refuses
    the request past ``limit`` (the Content-Length check alone misses chunked bodies)."""

    def __init__(self, app: Any, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        total = 0

        async def counted() -> Any:
            nonlocal total
            message = await receive()
            if message.get("type") == "http.request":
                total += len(message.get("body", b""))
                if total > self.limit:
                    raise BodyTooLarge(
                        N_("the request is larger than {max} KiB"), max=self.limit // 1024
                    )
            return message

        await self.app(scope, counted, send)


SECURITY_HEADERS = (
    (
        "content-security-policy",
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "script-src 'self'; frame-ancestors 'none'; form-action 'self'",
    ),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "same-origin"),
)
"""Headers every answer carries unless its route set them itself."""


class LanguageAndGuards:
    """Every request's language (``?lang=``, the cookie, ``Accept-Language``: a context
    variable the routes and their worker threads read; ``?lang=`` also sets the cookie),
    the refusals before any route (:func:`_refuse`: cross-site POSTs, oversized bodies),
    and :data:`SECURITY_HEADERS` on every answer. A pure ASGI middleware: the answer
    passes through as it is made (Starlette's ``BaseHTTPMiddleware`` ran every request
    in a task and stream of its own)."""

    def __init__(self, app: Any, pages: _Pages) -> None:
        self.app = app
        self.pages = pages

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        from starlette.datastructures import MutableHeaders

        request = Request(scope)
        asked = request.query_params.get("lang")
        code = weblang.choose(
            asked, request.cookies.get(weblang.COOKIE), request.headers.get("accept-language")
        )
        cookie = _language_cookie(code) if asked and asked.strip().lower() in LANGUAGES else None

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if cookie is not None:
                    headers.append("set-cookie", cookie)
                for name, value in SECURITY_HEADERS:
                    if name not in headers:
                        headers[name] = value
            await send(message)

        token = weblang.current.set(code)
        try:
            refusal = _refuse(request)
            if refusal is not None:
                response = _error(request, self.pages, refusal[0], refusal[1], refusal[2])
                await response(scope, receive, sending)
                return
            await self.app(scope, receive, sending)
        finally:
            weblang.current.reset(token)


def _language_cookie(code: str) -> str:
    """The ``Set-Cookie`` value that keeps the language ``code`` for a year."""
    made = Response()
    made.set_cookie(weblang.COOKIE, code, max_age=365 * 24 * 3600, samesite="lax", httponly=True)
    return next(v.decode("latin-1") for k, v in made.raw_headers if k == b"set-cookie")


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def create_app(db: str | Path | None = None) -> FastAPI:
    """The kerker web application. Generators are stateless (every result is made again
    from its seed); play sessions live in the store at ``db`` (a SQLite path or
    ``postgresql://...``; None: the user's SQLite file, created on first use)."""
    app = FastAPI(
        title="kerker",
        version=__version__,
        openapi_url="/api/openapi.json",
        docs_url=None,
        redoc_url=None,
    )
    pages = _Pages()
    app.state.pages = pages
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.add_middleware(BodyCap, limit=MAX_BODY)

    app.add_middleware(LanguageAndGuards, pages=pages)

    @app.exception_handler(KerkerError)
    async def kerker_error(request: Request, exc: KerkerError) -> Response:
        from kerker.play.store.base import BusyError

        if isinstance(exc, BusyError):  # nothing written: the client may simply try again
            response = _error(request, pages, 503, exc.code, exc.message(weblang.gettext()))
            response.headers["Retry-After"] = "1"
            return response
        status = (
            413
            if isinstance(exc, BodyTooLarge)
            else 404
            if isinstance(exc, services.UnknownTableSet)
            else 400
        )
        return _error(request, pages, status, exc.code, exc.message(weblang.gettext()))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> Response:
        from kerker.tables.schema_text import TEXTS, SchemaText

        _ = weblang.gettext()
        problems = []
        for err in exc.errors()[:3]:
            where = ".".join(str(p) for p in err.get("loc", ()) if p not in ("query", "body"))
            label = field_label(request.url.path, where)
            field = _(label) if label else where or "?"
            if err.get("type") in TEXTS:  # pydantic's reason in the request's language
                problem = SchemaText.of(err).message(_)
                problems.append(_("{field}: {problem}").format(field=field, problem=problem))
            else:
                problems.append(_("{field}: not a valid value").format(field=field))
        again = _form_again(request, "; ".join(problems))
        if again is not None:
            return pages.render(request, again[0], status=422, **again[1])
        return _error(request, pages, 422, "invalid_request", "; ".join(problems))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        _ = weblang.gettext()
        message = (
            _("no such page")
            if exc.status_code == 404
            else _("this method is not allowed here")
            if exc.status_code == 405
            else str(exc.detail)
        )
        response = _error(request, pages, exc.status_code, "http", message)
        for name, value in (exc.headers or {}).items():
            response.headers[name] = value
        return response

    from kerker.web.sessions import Sessions, session_routes

    sessions = Sessions(db)
    app.state.sessions = sessions
    _page_routes(app, pages)
    session_routes(app, sessions)
    _api_routes(app)
    return app


RECENT = 5
"""Sessions the start page offers to continue (each is replayed to count its rooms)."""


def ago(stamp: str, now: datetime | None = None) -> str:
    """ "vor 2 Stunden" for an ISO time stamp, in the current request's language."""
    _ = weblang.gettext()
    try:
        then = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return stamp
    seconds = int(((now or datetime.now(UTC)) - then).total_seconds())
    if seconds < 90:
        return _("just now")
    if seconds < 90 * 60:
        return _("{n} min ago").format(n=round(seconds / 60))
    if seconds < 36 * 3600:
        return _("{n} h ago").format(n=round(seconds / 3600))
    return _("{n} days ago").format(n=round(seconds / 86400))


FIELD_LABELS: dict[str, str] = {
    "seed": N_("Seed"),
    "accesses": N_("Entrances"),
    "caves": N_("Caves (Scatola Bianca)"),
    "difficulty": N_("Difficulty"),
    "entrance": N_("Entrance"),
    "expr": N_("Expression"),
    "levels": N_("Levels"),
    "max_areas": N_("Areas at most"),
    "min_areas": N_("Areas at least"),
    "modifier": N_("modifier"),
    "nosec": N_("Extra NoSec rooms"),
    "players": N_("Number of players"),
    "reputation": N_("Reputation"),
    "rules": N_("Rule set"),
    "theme": N_("Theme"),
    "value": N_("Value"),
    "size": N_("Sheet (squares)"),
}
"""The web forms' fields by the label the form shows them with (for error messages)."""
PATH_LABELS: dict[tuple[str, str], str] = {("/zones", "size"): N_("Size (nodes)")}


def field_label(path: str, name: str) -> str | None:
    """The (untranslated) label of form field ``name`` on page ``path``, or None for a
    parameter no form shows."""
    return PATH_LABELS.get((path, name)) or FIELD_LABELS.get(name)


def _recent_sessions(sessions: Any, lang: str, request: Request) -> list[dict[str, Any]]:
    """The most recently played sessions this browser holds the GM link of: name or seed,
    rule set, its areas (:func:`~kerker.dungeon.area_count.area_count_text`), when."""
    from kerker.dungeon.area_count import area_count_text
    from kerker.errors import KerkerError as _Err
    from kerker.i18n import translator

    out: list[dict[str, Any]] = []
    try:
        infos = sessions.listing(request)[:RECENT]
    except _Err:
        return out
    for info in infos:
        try:
            state = sessions.replay(info.id)
            rooms: str | None = area_count_text(
                [a for lv in state.document(lang)["levels"] for a in lv["areas"]],
                translator(lang),
            )
        except _Err:
            rooms = None
        out.append(
            {
                "id": info.id,
                "name": info.name,
                "seed": info.seed,
                "rules": RULE_NAMES.get(info.rules, info.rules),
                "rooms": rooms,
                "ago": ago(info.updated),
            }
        )
    return out


def _form_again(request: Request, error: str) -> tuple[str, dict[str, Any]] | None:
    """The template and context that show a form page again, filled in as asked, with
    ``error`` under it, for a GET of a form page whose parameters FastAPI refused (a seed
    "zz"); None for any other request."""
    if request.method != "GET" or _is_api(request):
        return None
    q = {k: v[:200] for k, v in request.query_params.items()}
    path = request.url.path
    if path == "/dice":
        return "dice.html", {
            "expr": q.get("expr", ""),
            "rolled": None,
            "odds": None,
            "error": error,
        }
    if path == "/check":
        return "check.html", {
            "value": q.get("value", ""),
            "difficulty": q.get("difficulty", "")[:60],
            "answer": None,
            "error": error,
        }
    if path == "/zones":
        return "zones.html", {
            "svg": None,
            "seed": q.get("seed", ""),
            "size": q.get("size", ""),
            "theme": q.get("theme", "scifi"),
            "view": "gm",
            "query": "",
            "error": error,
        }
    if path == "/prowl":
        return "prowl.html", {
            "plan": None,
            **{k: q.get(k, d) for k, d in (("seed", ""), ("reputation", "5"), ("players", "4"))},
            **{k: q.get(k, d) for k, d in (("accesses", ""), ("nosec", "0"))},
            "error": error,
        }
    if path == "/dungeon":
        keys = (
            ("rules", "zufallslabyrinth"),
            ("levels", "1"),
            ("size", ""),
            ("max_areas", "60"),
            ("min_areas", "10"),
            ("entrance", "variant"),
            ("caves", "depth"),
        )
        form = {k: q.get(k, d) for k, d in keys}
        return "dungeon.html", {
            "form": form,
            "doc": None,
            "seed": q.get("seed", ""),
            "own": [],
            "without": None,
            "error": error,
        }
    return None


def _refuse(request: Request) -> tuple[int, str, str] | None:
    """Requests refused before any route runs: cross-site POSTs and oversized bodies."""
    _ = weblang.gettext()
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        origin = request.headers.get("origin")
        if origin is not None:
            host = request.headers.get("host", "")
            if origin == "null" or urlsplit(origin).netloc != host:
                return 403, "cross_origin", _("requests from other sites are refused")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        return (
            413,
            "too_large",
            _("the request is larger than {max} KiB").format(max=MAX_BODY // 1024),
        )
    return None


def _error(request: Request, pages: _Pages, status: int, code: str, message: str) -> Response:
    if _is_api(request):
        return JSONResponse({"error": code, "message": message}, status_code=status)
    return pages.render(request, "error.html", status=status, message=message)


# -- parsing helpers -------------------------------------------------------------------------


def _seed(seed: int | None) -> int:
    return services.fresh_seed() if seed is None else services.check_seed(seed)


def _size(text: str | None, low: int, high: int, what: str) -> tuple[int, int] | None:
    if text is None or not text.strip():
        return None
    parts = text.lower().replace("×", "x").split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise OptionError(N_("size takes WIDTHxHEIGHT, e.g. 30x40, not {text!r}"), text=text)
    w, h = int(parts[0]), int(parts[1])
    if not (low <= w <= high and low <= h <= high):
        raise OptionError(
            N_("the {what} must be between {low}x{low} and {high}x{high}"),
            what=what,
            low=low,
            high=high,
        )
    return w, h


def _choice(value: str, choices: tuple[str, ...], what: str) -> str:
    if value not in choices:
        raise OptionError(
            N_("unknown {what} {value!r}; choose one of {choices}"),
            what=what,
            value=value,
            choices=", ".join(choices),
        )
    return value


def _zone_args(seed: int | None, size: str | None, theme: str) -> tuple[int, Any]:
    used = _seed(seed)
    return used, services.zone_map(used, _size(size, 2, 20, Word(N_("map size"))), theme)


def dungeon_options(
    rules: str,
    seed: int | None,
    levels: int,
    size: str | None,
    max_areas: int,
    min_areas: int,
    entrance: str,
    caves: str,
) -> services.DungeonOptions:
    """The dungeon options of a form or request, checked (a fresh seed when none is given);
    refuses an unknown rule set or sheet size in one line."""
    return services.DungeonOptions(
        rules=_choice(rules, RULE_SETS, Word(N_("rule set"))),
        seed=_seed(seed),
        levels=levels,
        size=_size(size, 10, 200, Word(N_("sheet"))),
        max_areas=max_areas,
        min_areas=min_areas,
        entrance=entrance,
        caves=caves,
    )


# -- pages -----------------------------------------------------------------------------------


def _page_routes(app: FastAPI, pages: _Pages) -> None:
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def index(request: Request) -> HTMLResponse:
        recent = _recent_sessions(request.app.state.sessions, weblang.current.get(), request)
        return pages.render(request, "index.html", recent=recent)

    @app.get("/dice", response_class=HTMLResponse, include_in_schema=False)
    def dice_page(request: Request, expr: str = "", seed: int | None = None) -> HTMLResponse:
        rolled = odds = None
        error = None
        if expr.strip():
            try:
                used = _seed(seed)
                rolled = services.roll_dice(expr, used)
                odds = services.dice_odds(expr)
            except KerkerError as exc:  # the page again, the form filled in, the reason beside it
                rolled = odds = None
                error = exc.message(weblang.gettext())
        return pages.render(
            request,
            "dice.html",
            status=400 if error else 200,
            expr=expr,
            rolled=rolled,
            odds=odds,
            error=error,
        )

    @app.get("/check", response_class=HTMLResponse, include_in_schema=False)
    def check_page(
        request: Request,
        value: int | None = None,
        difficulty: str = "",
        seed: int | None = None,
        roll: bool = False,
    ) -> HTMLResponse:
        answer = None
        error = None
        if value is not None:
            try:
                used = _seed(seed) if roll or seed is not None else None
                answer = services.hpr_check(value, difficulty[:60], used, weblang.current.get())
            except KerkerError as exc:  # the page again, the form filled in, the reason beside it
                error = exc.message(weblang.gettext())
        return pages.render(
            request,
            "check.html",
            status=400 if error else 200,
            error=error,
            value="" if value is None else value,
            difficulty=difficulty[:60],
            answer=answer,
        )

    @app.get("/tables", response_class=HTMLResponse, include_in_schema=False)
    def tables_page(request: Request) -> HTMLResponse:
        items = services.table_list(weblang.current.get())
        groups: dict[str, list[dict[str, Any]]] = {}
        for item in items:
            groups.setdefault(item["rule_set"], []).append(item)
        return pages.render(request, "tables.html", groups=groups)

    @app.get("/upload", response_class=HTMLResponse, include_in_schema=False)
    def upload_form(request: Request) -> HTMLResponse:
        return pages.render(request, "upload.html", checked=None, text="")

    @app.post("/upload", response_class=HTMLResponse, include_in_schema=False)
    async def upload(request: Request) -> HTMLResponse:
        form = await request.form(max_files=1, max_fields=8)
        file = form.get("file")
        text = form.get("text")
        name = "upload.yaml"
        content = ""
        if file is not None and not isinstance(file, str) and file.filename:
            raw = await file.read(services.MAX_UPLOAD * 4 + 1)
            name = file.filename
            try:
                content = raw.decode("utf-8-sig")
            except UnicodeDecodeError:
                raise OptionError(N_("a table file must be UTF-8 text")) from None
        elif isinstance(text, str):
            content = text
            given = form.get("name")
            if isinstance(given, str) and given.strip():
                name = given.strip()
        seed_text = form.get("seed")
        seed = (
            int(seed_text)
            if isinstance(seed_text, str) and seed_text.isdigit() and len(seed_text) < 12
            else services.fresh_seed()
        )
        checked = await asyncio.to_thread(
            services.check_upload, name, content, weblang.current.get(), seed
        )
        status = 422 if checked.problems else 200
        return pages.render(
            request, "upload.html", status=status, checked=checked, text=checked.text, seed=seed
        )

    @app.get("/tables/{table_id:path}", response_class=HTMLResponse, include_in_schema=False)
    def table_page(
        request: Request,
        table_id: str,
        roll: bool = False,
        seed: int | None = None,
        odds: bool = False,
    ) -> HTMLResponse:
        from kerker.tables.show import row_shown

        code = weblang.current.get()
        shown = services.table_show(table_id, code)
        for row in shown.get("rows") or ():
            # amounts as the expressions that fill them, never a bare "{amount}" or "{exits}"
            row["shown"] = row_shown(row.get("texts") or row.get("text"), row, code)
        rolled = services.table_roll(table_id, _seed(seed), code) if roll else None
        outcomes = None
        odds_error = None
        if odds:
            try:
                outcomes = services.table_odds(table_id, code)[:200]
            except KerkerError as err:
                odds_error = err.message(weblang.gettext())
        return pages.render(
            request,
            "table.html",
            table=shown,
            table_id=table_id,
            rolled=rolled,
            outcomes=outcomes,
            odds_error=odds_error,
        )

    @app.get("/zones", response_class=HTMLResponse, include_in_schema=False)
    def zones_page(
        request: Request,
        seed: int | None = None,
        size: str | None = None,
        theme: str = "scifi",
        view: str = "gm",
    ) -> HTMLResponse:
        from kerker.zones.render_md import render_md
        from kerker.zones.render_svg import render_svg

        code = weblang.current.get()
        try:
            view = _choice(view, ("gm", "player"), Word(N_("view")))
            used, zmap = _zone_args(seed, size, theme)
        except KerkerError as exc:  # the form again, filled in, the reason beside it
            return pages.render(
                request,
                "zones.html",
                status=400,
                error=exc.message(weblang.gettext()),
                svg=None,
                seed="" if seed is None else seed,
                size=size or "",
                theme=theme,
                view="gm",
                query="",
            )
        svg = render_svg(zmap, view=view, lang=code)
        query = {"seed": used, "theme": theme, **({"size": size} if size else {})}
        return pages.render(
            request,
            "zones.html",
            svg=svg,
            seed=used,
            size=size or "",
            theme=theme,
            view=view,
            key=render_md(zmap, code),
            query=urlencode(query),
        )

    @app.get("/prowl", response_class=HTMLResponse, include_in_schema=False)
    def prowl_page(
        request: Request,
        seed: int | None = None,
        reputation: int = 5,
        players: int = 4,
        accesses: int | None = None,
        nosec: int = 0,
        ops: str = "",
        add: str = "",
    ) -> HTMLResponse:
        from kerker.prowl.render_md import change_text, render_markdown
        from kerker.prowl.render_svg import render_svg

        code = weblang.current.get()

        def form_error(exc: KerkerError) -> HTMLResponse:
            """The options themselves refused: the form again, the reason beside it."""
            return pages.render(
                request,
                "prowl.html",
                status=400,
                error=exc.message(weblang.gettext()),
                plan=None,
                seed="" if seed is None else seed,
                reputation=reputation,
                players=players,
                accesses=accesses or "",
                nosec=nosec,
            )

        try:
            used = _seed(seed)
        except KerkerError as exc:
            return form_error(exc)
        chain = [o.strip() for o in ops.split(",") if o.strip()]
        if add.strip():
            chain.append(add.strip()[:120])
        refused = None
        try:
            plan = services.heist(used, reputation, players, accesses, nosec, ", ".join(chain))
        except KerkerError as exc:
            if not chain:
                return form_error(exc)
            # The plan before the refused operation, with the reason on the same page: the
            # chain without its last operation (the one a link or the field added), else none.
            refused = exc.message(weblang.gettext())
            try:
                chain = chain[:-1]
                plan = services.heist(used, reputation, players, accesses, nosec, ", ".join(chain))
            except KerkerError:
                chain = []
                try:
                    plan = services.heist(used, reputation, players, accesses, nosec)
                except KerkerError as bad:  # the options themselves, whatever the operations
                    return form_error(bad)
        svg = render_svg(plan, code)
        base = {
            "seed": used,
            "reputation": reputation,
            "players": players,
            "nosec": nosec,
            **({"accesses": accesses} if accesses else {}),
        }

        def link(more: list[str]) -> str:
            return "/prowl?" + urlencode({**base, **({"ops": ", ".join(more)} if more else {})})

        query = urlencode({**base, **({"ops": ", ".join(chain)} if chain else {})})
        from kerker.prowl.model import NOSEC, PATROL, SECURITY_KEYS

        # Only the operations the plan's state allows are links (a HiSec room is not raised,
        # a stationary challenge does not patrol); what the budget refuses answers with its
        # reason on this page.
        rooms = [
            (
                r.id,
                link([*chain, f"raise-room {r.id}"])
                if r.security < len(SECURITY_KEYS) - 1
                else None,
                link([*chain, f"lower-room {r.id}"]) if r.security != NOSEC else None,
            )
            for r in plan.rooms
        ]
        challenges = [
            (
                c.id,
                c.room,
                link([*chain, f"reinforce {c.id}"]),
                link([*chain, f"patrol {c.id}"]) if c.mobile and c.mode != PATROL else None,
            )
            for c in plan.challenges
        ]
        return pages.render(
            request,
            "prowl.html",
            status=400 if refused else 200,
            refused=refused,
            svg=svg,
            seed=used,
            reputation=reputation,
            players=players,
            accesses=accesses or "",
            nosec=nosec,
            sheet=render_markdown(plan, code),
            query=query,
            plan=plan,
            # the log's stable English keys ("R3 lo -> mid") as the sheet words them
            tunelog=[
                (e.op, e.cost, [change_text(plan, c, code) for c in e.changes])
                for e in plan.tuning.log
            ],
            chain=chain,
            ops=", ".join(chain),
            rooms=rooms,
            challenges=challenges,
            undo=link(chain[:-1]) if chain else None,
            doors=link([*chain, "reroll-doors"]),
            finish=link([*chain, "finish"]),
            verbs=services.tune_verbs(),
        )

    @app.get("/dungeon", response_class=HTMLResponse, include_in_schema=False)
    def dungeon_page(
        request: Request,
        rules: str = "zufallslabyrinth",
        seed: int | None = None,
        levels: int = 1,
        size: str | None = None,
        max_areas: int = 60,
        min_areas: int = 10,
        entrance: str = "variant",
        caves: str = "depth",
        tables: str = "",
        depth: int = 1,
        view: str = "gm",
        go: bool = False,
    ) -> HTMLResponse:
        from kerker.dungeon.render_key import render_html
        from kerker.dungeon.render_svg import render_svg

        form = {
            "rules": rules,
            "levels": levels,
            "size": size or "",
            "max_areas": max_areas,
            "min_areas": min_areas,
            "entrance": entrance,
            "caves": caves,
            **({"tables": tables} if tables else {}),
        }
        own = _table_set(request, tables)
        names = [name for name, _text in own]
        if not go and seed is None:
            return pages.render(
                request, "dungeon.html", form=form, doc=None, seed="", own=names, **_without(form)
            )
        code = weblang.current.get()
        try:
            options = dungeon_options(
                rules, seed, levels, size, max_areas, min_areas, entrance, caves
            )
            view = _choice(view, ("gm", "player"), Word(N_("view")))
            doc = services.dungeon_document(options, code, own)
        except KerkerError as exc:  # the form again, filled in, the reason beside it
            return pages.render(
                request,
                "dungeon.html",
                status=400,
                form=form,
                doc=None,
                seed="" if seed is None else seed,
                own=names,
                error=exc.message(weblang.gettext()),
                **_without(form),
            )
        depths = [lv["depth"] for lv in doc["levels"]]
        if depth not in depths:
            depth = depths[0]
        svg = render_svg(doc, depth=depth, view=view, lang=code)
        key = render_html(doc, lang=code, view=view, depth=depth, with_maps=False)
        query = {**form, "seed": options.seed, "go": 1}
        return pages.render(
            request,
            "dungeon.html",
            form=form,
            doc=doc,
            seed=options.seed,
            depth=depth,
            depths=depths,
            view=view,
            svg=svg,
            key=_html_body(key),
            query=urlencode(query),
            own=names,
            **_without(query),
        )

    @app.post("/dungeon", include_in_schema=False)
    async def dungeon_form(request: Request) -> Response:
        """The dungeon form (multipart, so it can carry own table files): the options are
        checked, new own table files linted and kept as a table set, and the answer is a
        redirect to the page of the dungeon (``tables=<digest>`` when there are own
        tables); lint problems are shown in the form (422), nothing kept."""
        from kerker.tables.owntexts import MAX_FILES
        from kerker.web.sessions import _form_int, _form_seed

        # one file more than a set takes: the set's own cap refuses it in the reader's words
        data = await request.form(max_files=MAX_FILES + 1, max_fields=24)

        def text(key: str, default: str = "") -> str:
            value = data.get(key)
            return value[:200] if isinstance(value, str) else default

        def number(key: str, what: str, low: int, high: int, default: int) -> int:
            found = _form_int(text(key), what, low, high)
            return default if found is None else found

        shown: dict[str, Any] = {
            "rules": text("rules", "zufallslabyrinth"),
            "levels": text("levels"),
            "size": text("size"),
            "max_areas": text("max_areas"),
            "min_areas": text("min_areas"),
            "entrance": text("entrance", "variant"),
            "caves": text("caves", "depth"),
        }
        try:
            seed = _form_seed(text("seed"))
            form: dict[str, Any] = {
                "rules": text("rules", "zufallslabyrinth"),
                "levels": number("levels", N_("levels"), 1, 20, 1),
                "size": text("size").strip() or "30x40",
                "max_areas": number("max_areas", N_("areas at most"), 1, 1000, 60),
                "min_areas": number("min_areas", N_("areas at least"), 0, 1000, 10),
                "entrance": text("entrance", "variant"),
                "caves": text("caves", "depth"),
            }
            dungeon_options(**form, seed=seed)  # refuses bad options before anything is kept
        except KerkerError as exc:  # the form again, as it was sent, the reason beside it
            return pages.render(
                request,
                "dungeon.html",
                status=400,
                form=shown,
                doc=None,
                seed=text("seed"),
                own=[],
                error=exc.message(weblang.gettext()),
                **_without(shown),
            )
        uploads = [f for f in data.getlist("files") if not isinstance(f, str) and f.filename]
        digest = text("tables").strip()
        if uploads:
            files = [(f.filename or "", await f.read(services.MAX_UPLOAD * 4 + 1)) for f in uploads]
            texts, problems = await asyncio.to_thread(
                services.own_table_files, files, weblang.current.get()
            )
            if problems:
                return pages.render(
                    request,
                    "dungeon.html",
                    status=422,
                    form=form,
                    doc=None,
                    seed="" if seed is None else seed,
                    own=[],
                    problems=problems[:50],
                    more=max(len(problems) - 50, 0),
                    **_without(form),
                )
            digest = await asyncio.to_thread(request.app.state.sessions.save_tables, texts)
        elif digest:
            await asyncio.to_thread(request.app.state.sessions.table_set, digest)
        query = {
            **form,
            **({"seed": seed} if seed is not None else {}),
            **({"tables": digest} if digest else {}),
            "go": 1,
        }
        return RedirectResponse("/dungeon?" + urlencode(query), status_code=303)

    @app.get("/download/{kind}", include_in_schema=False)
    def download(
        request: Request,
        kind: str,
        format: str = "svg",
        view: str = "gm",
        seed: int | None = None,
        theme: str = "scifi",
        size: str | None = None,
        reputation: int = 5,
        players: int = 4,
        accesses: int | None = None,
        nosec: int = 0,
        ops: str = "",
        rules: str = "zufallslabyrinth",
        levels: int = 1,
        max_areas: int = 60,
        min_areas: int = 10,
        entrance: str = "variant",
        caves: str = "depth",
        tables: str = "",
        depth: int = 1,
    ) -> Response:
        code = weblang.current.get()
        kind = _choice(kind, ("zones", "prowl", "dungeon"), Word(N_("download")))
        view = _choice(view, ("gm", "player"), Word(N_("view")))
        if seed is None:
            raise OptionError(N_("a download needs the seed of what it downloads"))
        if kind == "zones":
            used, zmap = _zone_args(seed, size, theme)
            return _zones_file(zmap, used, format, view, code)
        if kind == "prowl":
            plan = services.heist(seed, reputation, players, accesses, nosec, ops)
            return _prowl_file(plan, seed, format, code)
        options = dungeon_options(rules, seed, levels, size, max_areas, min_areas, entrance, caves)
        doc = services.dungeon_document(options, code, _table_set(request, tables))
        return _dungeon_file(doc, options, format, view, depth, code)


def _table_set(request: Request, digest: str) -> list[tuple[str, str]]:
    """The own table files of the table set ``digest`` ([] for none); refuses an unknown
    digest (a 404 with a message)."""
    if not digest:
        return []
    found: list[tuple[str, str]] = request.app.state.sessions.table_set(digest)
    return found


def _without(query: dict[str, Any]) -> dict[str, Any]:
    """The page's link without its own tables (``without``; None when it has none)."""
    if "tables" not in query:
        return {"without": None}
    return {"without": urlencode({k: v for k, v in query.items() if k != "tables"})}


def _html_body(document: str) -> str:
    """The inside of a whole HTML document's <body> (the key renderer writes whole pages)."""
    start = document.find("<body")
    if start < 0:
        return document
    start = document.find(">", start) + 1
    end = document.rfind("</body>")
    return document[start : end if end > start else len(document)]


def _attachment(data: str | bytes, name: str, media: str) -> Response:
    return Response(
        data, media_type=media, headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


def _zones_file(zmap: Any, seed: int, fmt: str, view: str, lang: str) -> Response:
    from kerker.zones.export import dumps
    from kerker.zones.render_md import render_md
    from kerker.zones.render_svg import render_png, render_svg

    fmt = _choice(fmt, ("svg", "png", "json", "md"), Word(N_("format")))
    suffix = "" if view == "gm" else "-player"
    name = f"zones-{seed}{suffix}.{fmt}"
    if fmt == "svg":
        return _attachment(render_svg(zmap, view=view, lang=lang), name, "image/svg+xml")
    if fmt == "png":
        return _attachment(render_png(zmap, view=view, lang=lang), name, "image/png")
    if fmt == "json":
        return _attachment(dumps(zmap, lang), f"zones-{seed}.json", "application/json")
    return _attachment(render_md(zmap, lang), f"zones-{seed}.md", "text/markdown; charset=utf-8")


def _prowl_file(plan: Any, seed: int, fmt: str, lang: str) -> Response:
    from kerker.prowl.export import dumps
    from kerker.prowl.render_md import render_markdown
    from kerker.prowl.render_svg import render_svg

    fmt = _choice(fmt, ("svg", "json", "md"), Word(N_("format")))
    name = f"prowl-{seed}.{fmt}"
    if fmt == "svg":
        return _attachment(render_svg(plan, lang), name, "image/svg+xml")
    if fmt == "json":
        return _attachment(dumps(plan), name, "application/json")
    return _attachment(render_markdown(plan, lang), name, "text/markdown; charset=utf-8")


DUNGEON_FORMATS = (
    "svg",
    "png",
    "json",
    "md",
    "html",
    "uvtt",
    "foundry",
    "projection-svg",
    "projection-png",
)
"""What ``/download/dungeon?format=`` takes; ``projection-svg`` and ``projection-png`` are
the players' map of a level alone (no title, scale bar or legend), for a projector."""


def _dungeon_file(
    doc: dict[str, Any],
    options: services.DungeonOptions,
    fmt: str,
    view: str,
    depth: int,
    lang: str,
) -> Response:
    from kerker.dungeon.export import dumps_document
    from kerker.dungeon.render_key import render_html, render_md
    from kerker.dungeon.render_svg import render_png, render_svg

    fmt = _choice(fmt, DUNGEON_FORMATS, Word(N_("format")))
    if depth not in [lv["depth"] for lv in doc["levels"]]:
        raise OptionError(N_("this dungeon has no level {depth}"), depth=depth)
    stem = f"{options.rules}-{options.seed}"
    level = f"-level{depth}" + ("" if view == "gm" else "-player")
    if fmt in ("projection-svg", "projection-png"):
        # a projected map is seen by the players: always their view, whatever ``view`` says
        from kerker.dungeon.files import PROJECTION

        name = f"{stem}-level{depth}{PROJECTION}"
        if fmt == "projection-svg":
            bare = render_svg(doc, depth=depth, view="player", lang=lang, bare=True)
            return _attachment(bare, f"{name}.svg", "image/svg+xml")
        png = render_png(doc, depth=depth, view="player", lang=lang, bare=True)
        return _attachment(png, f"{name}.png", "image/png")
    if fmt == "svg":
        return _attachment(
            render_svg(doc, depth=depth, view=view, lang=lang),
            f"{stem}{level}.svg",
            "image/svg+xml",
        )
    if fmt == "png":
        return _attachment(
            render_png(doc, depth=depth, view=view, lang=lang), f"{stem}{level}.png", "image/png"
        )
    if fmt == "json":
        return _attachment(dumps_document(doc), f"{stem}.json", "application/json")
    if fmt == "uvtt":
        from kerker.export.uvtt import export_uvtt

        text, _warnings = export_uvtt(doc, depth, view=view, lang=lang)
        return _attachment(text, f"{stem}{level}.dd2vtt", "application/json")
    if fmt == "foundry":
        return _attachment(
            _foundry_zip(doc, depth, view, lang, f"{stem}{level}"),
            f"{stem}{level}-foundry.zip",
            "application/zip",
        )
    if fmt == "md":
        return _attachment(
            render_md(doc, lang=lang, view=view), f"{stem}.md", "text/markdown; charset=utf-8"
        )
    return _attachment(
        render_html(doc, lang=lang, view=view), f"{stem}.html", "text/html; charset=utf-8"
    )


def _foundry_zip(doc: dict[str, Any], depth: int, view: str, lang: str, stem: str) -> bytes:
    """A Foundry bundle (scene, journal, picture) as one zip, byte for byte the same for the
    same document (fixed time stamps)."""
    import io
    import zipfile

    from kerker.export.foundry import export_foundry

    bundle = export_foundry(doc, depth, view=view, lang=lang)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in (
            (f"{stem}-scene.json", bundle.scene.encode()),
            (f"{stem}-journal.json", bundle.journal.encode()),
            (bundle.image_name, bundle.image),
        ):
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


# -- JSON API --------------------------------------------------------------------------------

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": 'The input is not usable: `{"error": code, "message": line}`'},
    404: {
        "description": 'No such route: `{"error": "http", "message"}`; or no own table set '
        'of that digest: `{"error": "unknown_tables", "message"}`'
    },
    422: {"description": 'A parameter has the wrong type: `{"error", "message"}`'},
}


def _api_routes(app: FastAPI) -> None:
    @app.get("/api/roll", responses=ERRORS, tags=["dice"])
    def api_roll(
        expr: str = Query(max_length=services.MAX_EXPRESSION), seed: int | None = None
    ) -> dict[str, Any]:
        """Roll a dice expression (docs/dice.md); the seed makes it repeatable."""
        used = _seed(seed)
        rolled = services.roll_dice(expr, used)
        return {
            "kerker": __version__,
            "expression": expr,
            "seed": used,
            "total": rolled.total,
            "explain": rolled.explain,
            "roll": rolled.record,
        }

    @app.get("/api/odds", responses=ERRORS, tags=["dice"])
    def api_odds(expr: str = Query(max_length=services.MAX_EXPRESSION)) -> dict[str, Any]:
        """Exact odds of a dice expression; probabilities as "n/d" strings."""
        return services.dice_odds(expr).data

    @app.get("/api/check", responses=ERRORS, tags=["dice"])
    def api_check(
        value: int, difficulty: str = Query("", max_length=60), seed: int | None = None
    ) -> dict[str, Any]:
        """An HPR check (seed 003): exact odds of the five outcomes, and the roll when a seed
        is given."""
        answer = services.hpr_check(
            value, difficulty, None if seed is None else _seed(seed), weblang.current.get()
        )
        return {
            "value": answer.value,
            "modifier": answer.modifier,
            "chance": answer.chance,
            "odds": {key: _fraction(p) for key, _name, p in answer.odds},
            "success": _fraction(answer.success),
            "lines": list(answer.lines),
        }

    @app.get("/api/tables", tags=["tables"])
    def api_tables() -> list[dict[str, Any]]:
        """Every shipped table with its dice and source."""
        return services.table_list(weblang.current.get())

    @app.get("/api/tables/{table_id:path}/roll", responses=ERRORS, tags=["tables"])
    def api_table_roll(table_id: str, seed: int | None = None) -> dict[str, Any]:
        """Roll a table (follow-ups included) with its roll log."""
        return services.table_roll(table_id, _seed(seed), weblang.current.get())

    @app.get("/api/tables/{table_id:path}/odds", responses=ERRORS, tags=["tables"])
    def api_table_odds(table_id: str) -> list[dict[str, str]]:
        """Every final outcome of a table with its exact probability ("n/d")."""
        return [
            {"outcome": text, "probability": _fraction(p)}
            for text, p in services.table_odds(table_id, weblang.current.get())
        ]

    @app.get("/api/tables/{table_id:path}", responses=ERRORS, tags=["tables"])
    def api_table(table_id: str) -> dict[str, Any]:
        """A table as stored: dice, rows, effects, source."""
        return services.table_show(table_id, weblang.current.get())

    @app.post("/api/table-sets", responses=ERRORS, tags=["tables"])
    def api_table_set(
        request: Request, body: Annotated[dict[str, Any] | None, Body()] = None
    ) -> dict[str, Any]:
        """Keep own table files as a table set: the body `{"tables": [{"name", "text"}]}`
        (YAML; up to 20 files; linted, the first problem refused as a 400
        `file:line:col: message`). Answers `{"digest", "names"}`; the same files give the
        same digest. `GET /api/dungeon?tables=<digest>` rolls on them."""
        from kerker.tables.owntexts import refuse_bad

        raw = (body or {}).get("tables")
        if (
            not isinstance(raw, list)
            or not raw
            or not all(
                isinstance(t, dict)
                and isinstance(t.get("name"), str)
                and isinstance(t.get("text"), str)
                for t in raw
            )
        ):
            raise OptionError(N_('tables takes a list of {{"name", "text"}} objects'))
        texts = [(str(t["name"]), str(t["text"])) for t in raw]
        refuse_bad(texts, weblang.gettext())
        digest = request.app.state.sessions.save_tables(texts)
        return {"digest": digest, "names": [name for name, _text in texts]}

    @app.get("/api/zones", responses=ERRORS, tags=["generators"])
    def api_zones(
        seed: int | None = None, size: str | None = None, theme: str = "scifi"
    ) -> Response:
        """A zone map (seed 002) as the JSON document of `kerker zones --json`."""
        from kerker.zones.export import dumps

        _used, zmap = _zone_args(seed, size, theme)
        return Response(dumps(zmap, weblang.current.get()), media_type="application/json")

    @app.get("/api/prowl", responses=ERRORS, tags=["generators"])
    def api_prowl(
        reputation: int,
        players: int,
        seed: int | None = None,
        accesses: int | None = None,
        nosec: int = 0,
        ops: str = Query("", max_length=2000),
    ) -> Response:
        """A heist complex (seed 004) as the plan JSON of `kerker prowl --json`, fine-tuned by
        `ops` (`prowl tune`'s operations separated by commas)."""
        from kerker.prowl.export import dumps

        plan = services.heist(_seed(seed), reputation, players, accesses, nosec, ops)
        return Response(dumps(plan), media_type="application/json")

    @app.get("/api/dungeon", responses=ERRORS, tags=["generators"])
    def api_dungeon(
        request: Request,
        rules: str = "zufallslabyrinth",
        seed: int | None = None,
        levels: int = 1,
        size: str | None = None,
        max_areas: int = 60,
        min_areas: int = 10,
        entrance: str = "variant",
        caves: str = "depth",
        tables: str = "",
    ) -> Response:
        """A whole dungeon as the document of `kerker dungeon --json` (docs/dungeon-json.md);
        `tables`: the digest of an own table set (`POST /api/table-sets`), rolled on as
        `kerker dungeon --tables` rolls on those files (an unknown digest is a 404)."""
        from kerker.dungeon.export import dumps_document

        options = dungeon_options(rules, seed, levels, size, max_areas, min_areas, entrance, caves)
        own = _table_set(request, tables)
        doc = services.dungeon_document(options, weblang.current.get(), own)
        return Response(dumps_document(doc), media_type="application/json")
