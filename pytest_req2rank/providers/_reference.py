"""``r2r/reference``: answers with each task's reference solution, offline."""

from __future__ import annotations

import json

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
        if request.task.reference_files:
            files = [{"path": path, "content": content}
                     for path, content in request.task.reference_files.items()]
            return Completion(text=json.dumps({"files": files}), model=self.model)
        reference = request.task.reference
        text = reference if "```" in reference else f"```python\n{reference.rstrip()}\n```\n"
        return Completion(text=text, model=self.model)
