"""The web app (``kerker serve``): every generator in the browser, on the same library.

Imported only by ``kerker serve`` and its tests, so the CLI does not load the web stack.
:func:`create_app` builds the ASGI application; pages are server-rendered HTML (Jinja2) that
work without JavaScript, and a JSON API sits beside them (``/api/...``, OpenAPI document at
``/api/openapi.json``).
"""

from __future__ import annotations

from kerker.web.app import create_app

__all__ = ["create_app"]
