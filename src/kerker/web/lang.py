"""The language of one request: ``?lang=``, then the ``kerker_lang`` cookie, then
Accept-Language, then English. Held in a context variable for the request, never switched
globally, so two requests in different languages never see each other's words."""

from __future__ import annotations

from contextvars import ContextVar

from kerker.i18n import FALLBACK, LANGUAGES, Translate, translator

COOKIE = "kerker_lang"
current: ContextVar[str] = ContextVar("kerker_web_lang", default=FALLBACK)


def from_accept_language(header: str) -> str | None:
    """The best of :data:`~kerker.i18n.LANGUAGES` in an Accept-Language header, or None.

    Quality values are honoured (``it;q=0.9, de;q=0.8`` -> it); malformed parts are skipped.
    """
    best: tuple[float, int, str] | None = None
    for index, part in enumerate(header.split(",")[:32]):
        fields = part.strip().split(";")
        code = fields[0].strip().split("-")[0].split("_")[0].lower()
        quality = 1.0
        for field in fields[1:]:
            name, _, value = field.strip().partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if code not in LANGUAGES or not 0 < quality <= 1:
            continue
        if best is None or (quality, -index) > (best[0], best[1]):
            best = (quality, -index, code)
    return best[2] if best else None


def choose(query: str | None, cookie: str | None, accept: str | None) -> str:
    """The request's language by the order in the module docstring; unknown codes are skipped."""
    for value in (query, cookie):
        if value and value.strip().lower() in LANGUAGES:
            return value.strip().lower()
    if accept:
        found = from_accept_language(accept)
        if found:
            return found
    return FALLBACK


def gettext() -> Translate:
    """The translation function of the current request's language."""
    return translator(current.get())
