"""``r2r/degraded:P``: an instrument of known quality, answering offline.

Each item is answered with its reference solution with probability P, else with a wrong
program: a first-order mutant of the reference that fails at least one of the item's hidden
tests. Which of the two is drawn from the answer's seed (the run seed and the sample), the
item id and P, so the same run answers the same way in any process; P is part of the draw,
so instruments of different P on one seed fail independently (with the same draw they would
be nested, and always ordered right). Finding the failing mutant needs the item's hidden
tests and the sandbox, which the engine's item runners hand over (:meth:`answer`); the
expected accepted@1 is P on any suite whose tasks have references.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..models import ModelSpec, Task
from ._base import Completion, CompletionRequest, Provider, ProviderConfigError
from ._reference import answer_text


class DegradedProvider(Provider):
    """``r2r/degraded:P``: the reference with probability P, else a failing mutant."""

    def __init__(self, spec: ModelSpec) -> None:
        if spec.kind != "degraded" or spec.quality is None:
            raise ProviderConfigError(f"{spec} is not an r2r/degraded:P model")
        self.model = spec.text
        self.quality = spec.quality

    @property
    def offline(self) -> bool:
        return True

    def _task(self, request: CompletionRequest) -> Task:
        if request.task is None:
            raise ProviderConfigError(f"{self.model} answers benchmark items only, and this "
                                      "request carries no task")
        return request.task

    def draws_reference(self, request: CompletionRequest) -> bool:
        """Whether this request is answered with the reference (probability P)."""
        item_id = self._task(request).item_id
        draw = random.Random(f"{request.seed}/{item_id}/{self.quality!r}").random()
        return draw < self.quality

    def answer(self, request: CompletionRequest, wrong_answer: Callable[[], str]) -> Completion:
        """The reference's answer when drawn, else ``wrong_answer()`` (the engine's search
        for a mutant the item's hidden tests kill)."""
        task = self._task(request)
        if self.draws_reference(request):
            return Completion(text=answer_text(task.reference_files or task.reference),
                              model=self.model)
        return Completion(text=wrong_answer(), model=self.model)

    def complete(self, request: CompletionRequest) -> Completion:
        raise ProviderConfigError(
            f"{self.model} answers the engine's benchmark items only (it needs an item's hidden "
            "tests to pick a failing mutant); it cannot judge, generate or answer N-version runs")
