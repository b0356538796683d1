"""``r2r/reference``: answers with each task's reference solution, offline."""

from __future__ import annotations

import json
from collections.abc import Mapping

from ..models import REFERENCE_MODEL
from ._base import Completion, CompletionRequest, Provider, ProviderError


class ReferenceProvider(Provider):
    """Answers with ``request.task.reference`` in a ```python fenced block.

    A reference that itself contains a triple-backtick fence is returned as is,
    since fencing it would cut it short. A multi-file reference (requirement
    tasks) is answered as ``{"files": [...]}`` JSON, as the target model is asked
    to. Token counts and cost are unknown (``None``).
    """

    model = REFERENCE_MODEL

    @property
    def offline(self) -> bool:
        return True

    def complete(self, request: CompletionRequest) -> Completion:
        if request.task is None:
            raise ProviderError(
                "api_error",
                f"{REFERENCE_MODEL} answers benchmark tasks only, and this request carries no task",
            )
        task = request.task
        return Completion(text=answer_text(task.reference_files or task.reference),
                          model=self.model)


def answer_text(program: str | Mapping[str, str]) -> str:
    """A program as a target model is asked to answer it: a source in a ```python fence (as
    is when it holds a fence itself), files as ``{"files": [...]}`` JSON."""
    if not isinstance(program, str):
        files = [{"path": path, "content": content} for path, content in program.items()]
        return json.dumps({"files": files})
    return program if "```" in program else f"```python\n{program.rstrip()}\n```\n"
