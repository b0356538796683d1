"""HTML forms sent to the pages (``application/x-www-form-urlencoded``), read without a
multipart parser: the pages' forms have a few short text fields."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import parse_qs

from fastapi import Depends, Request

from ._errors import Refused

MAX_FIELDS = 10


async def form_fields(request: Request) -> dict[str, str]:
    """The form's fields, the first value of each (the body's size is limited already)."""
    try:
        text = (await request.body()).decode("utf-8")
        fields = parse_qs(text, keep_blank_values=True, max_num_fields=MAX_FIELDS)
    except (UnicodeDecodeError, ValueError):
        raise Refused(400, "invalid_form", "the form could not be read (not UTF-8, or too many "
                      "fields); reload the page and send it again") from None
    return {name: values[0] for name, values in fields.items()}


Form = Annotated[dict[str, str], Depends(form_fields)]
