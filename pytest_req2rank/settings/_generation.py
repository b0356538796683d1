"""The settings of the N-version generation pipeline (``--r2r-nv-*``), a part of
:class:`Settings`: the state machine's bounds, the HILE counts, IRQN's parameters."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, model_validator

from ..models import GenerationConfig

_DEFAULT = GenerationConfig()


class GenerationSettings(BaseModel):
    """The ``nv_*`` fields of :class:`Settings`; :meth:`generation_config` gathers them."""

    nv_method: Literal["pipeline", "plain"] = _DEFAULT.method
    nv_retries: int = Field(default=_DEFAULT.retries, ge=0, le=20)
    nv_rollbacks: int = Field(default=_DEFAULT.rollbacks, ge=0, le=20)
    nv_repairs: int = Field(default=_DEFAULT.repairs, ge=0, le=20)
    nv_thoughts: int | None = Field(default=_DEFAULT.thoughts, ge=1, le=20)
    nv_solutions: int = Field(default=_DEFAULT.solutions, ge=1, le=10)
    nv_implementations: int = Field(default=_DEFAULT.implementations, ge=1, le=10)
    nv_theta_diff: float = Field(default=_DEFAULT.theta_diff, ge=0, le=1)
    nv_theta_ident: float = Field(default=_DEFAULT.theta_ident, ge=0, le=1)
    nv_p_qn1: float = Field(default=_DEFAULT.p_qn1, ge=0, le=1)
    nv_p_qn2: float = Field(default=_DEFAULT.p_qn2, ge=0, le=1)
    nv_irqn_iterations: int = Field(default=_DEFAULT.irqn_iterations, ge=1, le=20)

    @model_validator(mode="after")
    def _check_thresholds(self) -> GenerationSettings:
        if self.nv_theta_diff > self.nv_theta_ident:
            raise ValueError(f"nv_theta_diff: {self.nv_theta_diff} is above --r2r-nv-theta-ident "
                             f"({self.nv_theta_ident}); retain needs the lower threshold")
        return self

    def generation_config(self) -> GenerationConfig:
        """The pipeline's parameters."""
        return GenerationConfig(**{name: getattr(self, f"nv_{name}")
                                   for name in GenerationConfig.model_fields})
