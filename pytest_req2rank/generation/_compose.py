"""Composition upgrade: two compatible templates delivered together as one higher-complexity requirement."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from ..models import Complexity, Guidance, Interface, ProjectRequirement
from ._instantiate import assignments
from ._template import Template
from ._templating import render_code

COMPOSABLE: frozenset[str] = frozenset({"C1", "C2"})
"""Complexities a part of a composition may have (C1+C1 → C2, otherwise → C3)."""
_KINDS = {"function", "module"}
_SEPARATE = ("Keep each part in the modules its interface names; the two parts must import and "
             "work independently.")


def composed_complexity(a: Template, b: Template) -> Complexity:
    return "C2" if a.complexity == b.complexity == "C1" else "C3"


def clash(a: Template, b: Template) -> str | None:
    """Why ``a`` and ``b`` cannot be composed, or None when they can.

    Over every slot assignment, their files and modules must differ and the
    names their probe setups bind must not overlap (the setups run together).
    """
    if a.id == b.id:
        return "a template cannot be composed with itself"
    for template in (a, b):
        if template.complexity not in COMPOSABLE:
            return f"{template.id} is {template.complexity}; only {sorted(COMPOSABLE)} templates compose"
        if template.interface.kind not in _KINDS:
            return f"{template.id} has a {template.interface.kind} interface"
    if not set(a.domains) & set(b.domains):
        return "no domain in common"
    shared_modules = _modules(a) & _modules(b)
    if shared_modules:
        return f"both deliver modules {sorted(shared_modules)}"
    shared_names = _setup_names(a) & _setup_names(b)
    if shared_names:
        return f"both setups bind {sorted(shared_names)}"
    return None


_Footprint = tuple[frozenset[str], frozenset[str]]
_FOOTPRINTS: dict[tuple[object, ...], _Footprint] = {}


def _footprint(template: Template) -> _Footprint:
    """The modules a template delivers and the names its setup binds, over every assignment."""
    key = (template.id, template.setup, tuple(template.reference), template.slots)
    if key not in _FOOTPRINTS:
        every = assignments(template)
        paths = {render_code(path, values) for values in every for path in template.reference}
        modules = {path.removesuffix(".py").replace("/", ".").split(".")[0] for path in paths}
        names = {name for values in every for name in bound_names(render_code(template.setup, values))}
        _FOOTPRINTS[key] = (frozenset(modules), frozenset(names))
    return _FOOTPRINTS[key]


def _modules(template: Template) -> frozenset[str]:
    return _footprint(template)[0]


def _setup_names(template: Template) -> frozenset[str]:
    return _footprint(template)[1]


def bound_names(code: str) -> set[str]:
    """Every name a piece of code binds anywhere (``*`` for a star import)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


def compose(parts: tuple[ProjectRequirement, ProjectRequirement], *, complexity: Complexity,
            skills: tuple[str, ...]) -> ProjectRequirement:
    """One requirement delivering both parts: both modules, both probe sets, a combined text."""
    a, b = parts
    clashing = set(a.reference) & set(b.reference)
    if clashing:
        raise ValueError(f"{a.id} and {b.id} both deliver {sorted(clashing)}")
    probes = tuple(p.model_copy(update={"name": f"{req.template_id}:{p.name}"})
                   for req in parts for p in req.probes)
    requirements = [r for req in parts for r in req.requirements]
    return ProjectRequirement(
        id=f"{a.id}+{b.id}",
        template_id=f"{a.template_id}+{b.template_id}",
        title=f"{a.title}, together with: {b.title}",
        description=(
            "Deliver two components that ship together in one code base. Each keeps its own "
            "modules and public interface; neither depends on the other's internals.\n\n"
            f"Part 1 - {a.title}\n{a.description.strip()}\n\n"
            f"Part 2 - {b.title}\n{b.description.strip()}\n"
        ),
        requirements=tuple(r.model_copy(update={"id": f"FR-{i}"})
                           for i, r in enumerate(requirements, start=1)),
        constraints=(*_unique([*a.constraints, *b.constraints]), _SEPARATE),
        deliverables=(*a.deliverables, *b.deliverables),
        interface=Interface(kind="module", text=(f"Part 1 ({a.interface.kind}):\n"
                                                 f"{a.interface.text.strip()}\n\n"
                                                 f"Part 2 ({b.interface.kind}):\n"
                                                 f"{b.interface.text.strip()}\n")),
        metadata=a.metadata.model_copy(update={"skills": skills, "complexity": complexity}),
        guidance=Guidance(
            differentiators=(*a.guidance.differentiators, *b.guidance.differentiators,
                             "Clean boundary between the two parts"),
            pitfalls=(*a.guidance.pitfalls, *b.guidance.pitfalls),
            edge_cases=(*a.guidance.edge_cases, *b.guidance.edge_cases),
        ),
        slots={f"{req.template_id}.{name}": value for req in parts for name, value in req.slots.items()},
        reference={**a.reference, **b.reference},
        setup=f"{a.setup.rstrip()}\n{b.setup.strip()}\n",
        probes=probes,
    )


def _unique(texts: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for text in texts:
        seen.setdefault(text, None)
    return list(seen)

