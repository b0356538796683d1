"""The self-contained HTML report of a run, rendered from its results document alone.

One file that opens from disk: styles, script, plots (inline SVG) and item details (JSON
read by the script and inserted as text, never as markup) are all inside it; a Content
Security Policy lets only the report's own script run and forbids every network request.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._document import ResultsDocument, validate_results

if TYPE_CHECKING:
    import jinja2

TEMPLATES = "templates"
HTML_EXTRA = "pip install 'pytest-req2rank[html]'"
_JSON_IN_HTML = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"))
"""JSON escapes for the characters that could end a script element or start markup
(applied with str.replace: str.translate costs seconds on the 20 MB of a 1,000-item run)."""


def html_report_problem() -> str | None:
    """Why no HTML report can be written here (its libraries are missing), or ``None``."""
    missing = [name for name in ("matplotlib", "jinja2") if importlib.util.find_spec(name) is None]
    if missing:
        return f"the HTML report needs {' and '.join(missing)}: {HTML_EXTRA}"
    return None


def render_html(document: Mapping[str, Any]) -> str:
    """The report of the results ``document`` (the dict written as results JSON) as one
    HTML page. Raises :class:`InvalidResults` when the document is not a valid one."""
    from markupsafe import Markup  # jinja2's own: the report's libraries load on demand

    from ._html_view import build_view

    data = dict(document)
    validate_results(data)
    view = build_view(ResultsDocument.model_validate(data))
    details = json.dumps(view.pop("details"), ensure_ascii=False, separators=(",", ":"))
    script = _asset("report.js")
    template = _environment().get_template("report.html.j2")
    return template.render(
        **view,
        # the package's own files, and JSON with every '<', '>' and '&' escaped: no markup
        style=Markup(_asset("report.css")),
        script=Markup(script),
        script_hash=base64.b64encode(hashlib.sha256(script.encode()).digest()).decode(),
        details_json=Markup(_json_for_html(details)),
    )


def write_html(document: Mapping[str, Any], path: Path) -> Path:
    """Render the report of ``document`` and write it to ``path`` atomically; returns ``path``.
    ``OSError`` when it cannot be written."""
    text = render_html(document)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def _json_for_html(text: str) -> str:
    for character, escaped in _JSON_IN_HTML:
        text = text.replace(character, escaped)
    return text


@cache
def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(TEMPLATES, name).read_text(encoding="utf-8")


@cache
def _environment() -> jinja2.Environment:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FunctionLoader(_asset), autoescape=True,
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
