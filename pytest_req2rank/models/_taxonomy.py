"""The skill matrix (skills × complexity) and the domain/scenario taxonomy requirements are drawn from."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Complexity = Literal["C1", "C2", "C3", "C4"]

SKILLS: dict[str, str] = {
    "algorithm": "Algorithms and data structures: sorting, searching, dynamic programming",
    "api-design": "Interface design: routes, request and response formats",
    "data-processing": "Data processing: CSV parsing, JSON transformation",
    "error-handling": "Error handling: input validation, retries",
    "concurrency": "Concurrent programming: task orchestration, rate limiting",
    "security": "Secure coding: input sanitisation, authentication, authorisation",
    "testing": "Writing tests: unit tests, mocks",
    "system-design": "Architecture: layering, dependency injection",
    "frontend": "UI building: components, state management",
    "database": "Data modelling: schemas, SQL/ORM",
}


class ComplexityLevel(BaseModel):
    """One complexity level with its execution budget (API timeout and token budget)."""

    model_config = ConfigDict(frozen=True)

    code: Complexity
    name: str
    definition: str
    scope: str
    timeout_s: float
    max_tokens: int


COMPLEXITIES: dict[str, ComplexityLevel] = {
    level.code: level
    for level in (
        ComplexityLevel(code="C1", name="atomic", definition="A single feature",
                        scope="1 file, 1 function", timeout_s=30, max_tokens=4096),
        ComplexityLevel(code="C2", name="composed", definition="2-3 features combined",
                        scope="1-2 files", timeout_s=60, max_tokens=8192),
        ComplexityLevel(code="C3", name="integrated", definition="Several collaborating features",
                        scope="several files with module boundaries", timeout_s=120,
                        max_tokens=16384),
        ComplexityLevel(code="C4", name="architectural", definition="A complete small application",
                        scope="an application with separated layers", timeout_s=180,
                        max_tokens=32768),
    )
}

DOMAINS: dict[str, tuple[str, ...]] = {
    "e-commerce": ("product-search", "shopping-cart", "coupons", "inventory",
                   "order-state-machine"),
    "social": ("feed", "comments", "notifications", "friendships"),
    "finance": ("bookkeeping", "currency-conversion", "risk-rules", "reporting"),
    "developer-tools": ("cli-tool", "config-parser", "log-analysis", "mock-server"),
    "data-analysis": ("data-cleaning", "statistical-aggregation", "etl-pipeline"),
    "games": ("game-loop", "collision-detection", "save-system"),
    "general-utilities": ("file-conversion", "caching", "task-scheduling",
                          "markdown-rendering"),
}
"""Domain id → its scenario ids. A scenario is named ``domain/scenario`` in templates."""


def scenario_ids() -> tuple[str, ...]:
    """Every scenario as ``domain/scenario``, in taxonomy order."""
    return tuple(f"{domain}/{s}" for domain, scenarios in DOMAINS.items() for s in scenarios)
