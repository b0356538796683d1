"""Whether LiteLLM surely routes a model string to no provider, decided without importing it.

Importing litellm costs seconds of CPU, too much to spend before telling a user that
``nosuch/x`` is no model. :func:`surely_unroutable` reads what the installed LiteLLM ships
(its provider enum, its bundled JSON providers, its model cost map with the routing rules
in it, the model names and prefixes written in its source) and answers True only when no
route of ``litellm.get_llm_provider`` can take the string. Whenever a route might, it
answers False and the caller asks LiteLLM itself, so the verdict is always LiteLLM's:
this only decides a refusal sooner. tests/providers/test_routing.py compares it with
``litellm.get_llm_provider`` on every provider prefix and every priced model name.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ._env import OFFLINE_DEFAULTS


def unroutable_message(model: str) -> str:
    """The usage error for a model LiteLLM routes to no provider."""
    return (f"LiteLLM cannot route model {model!r}; use a LiteLLM model string such as "
            "gpt-4o, anthropic/<model>, gemini/<model>, azure/<deployment>, "
            "ollama_chat/<model>, hosted_vllm/<model>, or openai/<model> with --r2r-api-base")


@dataclass(frozen=True)
class RoutingData:
    """What LiteLLM's router consults, as read from its installed files."""

    providers: frozenset[str]
    """Every ``provider/`` prefix LiteLLM takes: its ``LlmProviders`` enum and JSON providers."""
    names: frozenset[str]
    """Every model name LiteLLM may know by itself: cost map keys (whole, and after each
    ``/``) and the string literals in its router and model lists."""
    prefixes: tuple[str, ...]
    """Every literal ``get_llm_provider`` tests a model's start against."""
    rules: tuple[re.Pattern[str], ...]
    """The cost map's fallback rules that may route an unknown name (searched, ignoring case)."""


def surely_unroutable(model: str, api_base: str | None = None) -> bool:
    """True when ``litellm.get_llm_provider(model, api_base=api_base)`` surely raises; False
    when it may route the model (ask LiteLLM), or when the environment changes what it reads."""
    if api_base is not None or not _environment_is_default():
        return False
    data = routing_data()
    if data is None:
        return False
    return not (
        model.split("/", 1)[0] in data.providers
        or model in data.names
        or ":" in model  # fine-tuned ids (ft:gpt-4o:…) and Replicate versions (owner/name:hash)
        or model.startswith(data.prefixes)
        or any(rule.search(model) for rule in data.rules)
    )


def _environment_is_default() -> bool:
    # LiteLLM reads these at import (a remote cost map, a .env file) or per call (a proxy).
    def setting(name: str) -> str:
        return os.environ.get(name, OFFLINE_DEFAULTS.get(name, ""))

    return (setting("LITELLM_LOCAL_MODEL_COST_MAP").lower() == "true"
            and setting("LITELLM_MODE") != "DEV"
            and "USE_LITELLM_PROXY" not in os.environ)


@functools.cache
def routing_data() -> RoutingData | None:
    """LiteLLM's routing data read from its package files (tens of milliseconds, once), or
    None when LiteLLM is not installed or its files are not laid out as expected."""
    spec = importlib.util.find_spec("litellm")  # finds the package without executing it
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    try:
        return _read(root)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _read(root: Path) -> RoutingData | None:
    enum_members = _enum_values(root / "types" / "utils.py", "LlmProviders")
    if not enum_members:
        return None
    json_providers = json.loads((root / "llms" / "openai_like" / "providers.json").read_text())
    cost_map = json.loads((root / "model_prices_and_context_window_backup.json").read_text())
    router_source = (root / "litellm_core_utils" / "get_llm_provider_logic.py").read_text()
    literals: set[str] = set()
    for module in ("__init__.py", "constants.py"):
        literals |= _string_literals((root / module).read_text())
    literals |= _string_literals(router_source)
    prefixes = tuple(sorted(set(re.findall(r"""\.startswith\(\s*["']([^"']+)["']""", router_source))))
    return RoutingData(
        providers=frozenset(enum_members) | frozenset(json_providers),
        names=frozenset(_with_suffixes(cost_map)) | frozenset(literals),
        prefixes=prefixes,
        rules=_routing_rules(cost_map.get("fallback_generalizations")),
    )


def _enum_values(path: Path, class_name: str) -> list[str]:
    # The class body as text: parsing the whole 4,000-line module would cost more than the rest.
    source = path.read_text()
    start = source.find(f"\nclass {class_name}(")
    if start < 0:
        return []
    body = re.split(r"\n(?=\S)", source[start + 1:], maxsplit=1)[0]
    return re.findall(r"""^\s+[A-Za-z_][A-Za-z0-9_]*\s*=\s*["']([^"'\n]*)["']""", body, re.MULTILINE)


def _with_suffixes(keys: Iterable[str]) -> Iterator[str]:
    # LiteLLM also lists a priced model without its namespace (vertex_ai/imagen-… as imagen-…).
    for key in keys:
        parts = key.split("/")
        for start in range(len(parts)):
            yield "/".join(parts[start:])


def _string_literals(source: str) -> set[str]:
    # A superset of the names LiteLLM hard-codes in lists; a false hit only defers to LiteLLM.
    return set(re.findall(r'"([^"\\\n]*)"', source)) | set(re.findall(r"'([^'\\\n]*)'", source))


def _routing_rules(block: object) -> tuple[re.Pattern[str], ...]:
    rules = block.get("rules", []) if isinstance(block, dict) else []
    if not isinstance(rules, list):
        raise TypeError("fallback_generalizations.rules is not a list")
    patterns: list[re.Pattern[str]] = []
    for rule in rules:
        if not isinstance(rule, dict) or not isinstance(rule.get("pattern"), str):
            continue
        info = rule.get("model_info")
        # A rule routes when it names a provider, or may inherit one through "extends".
        if (isinstance(info, dict) and "litellm_provider" in info) or "extends" in rule:
            try:
                patterns.append(re.compile(rule["pattern"], re.IGNORECASE))
            except re.error:
                continue  # LiteLLM skips an invalid pattern too
    return tuple(patterns)
