"""A contract type of our own for import-linter: a package imports only the standard library.

``lint-imports`` (configured in pyproject.toml) loads it by its dotted path; it runs from the
repository's root, which import-linter puts on ``sys.path``.
"""

from __future__ import annotations

import sys
from typing import Any, cast

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output


class StandardLibraryOnlyContract(Contract):
    """``source_modules`` (and everything below them) import nothing outside the standard library
    and the project's own ``internal_packages``."""

    source_modules = fields.ListField(subfield=fields.StringField())
    internal_packages = fields.ListField(subfield=fields.StringField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        sources = [str(m) for m in cast(list[str], self.source_modules)]
        internal = {str(p) for p in cast(list[str], self.internal_packages)}
        found: list[dict[str, Any]] = []
        for source in sources:
            modules = {source} | graph.find_descendants(source)
            for module in sorted(modules):
                for imported in sorted(graph.find_modules_directly_imported_by(module)):
                    top = imported.split(".")[0]
                    if top in internal or top in sys.stdlib_module_names:
                        continue
                    lines = graph.get_import_details(importer=module, imported=imported)
                    found.append(
                        {
                            "importer": module,
                            "imported": imported,
                            "lines": [d["line_number"] for d in lines],
                        }
                    )
        return ContractCheck(kept=not found, metadata={"found": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for item in check.metadata["found"]:
            where = ", ".join(f"l.{n}" for n in item["lines"]) or "?"
            output.print_error(
                f"{item['importer']} imports {item['imported']} ({where}), which is not in the "
                "standard library."
            )
            output.new_line()


class NoCycleContract(Contract):
    """No module of ``packages`` imports another that imports it back, directly or not: the
    import graph of every module below them (the packages themselves included) has no cycle."""

    packages = fields.ListField(subfield=fields.StringField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        roots = [str(p) for p in cast(list[str], self.packages)]
        modules = {m for root in roots for m in {root} | graph.find_descendants(root)}
        edges = {
            m: sorted(graph.find_modules_directly_imported_by(m) & modules) for m in sorted(modules)
        }
        cycles = [sorted(c) for c in _strongly_connected(edges) if len(c) > 1]
        return ContractCheck(kept=not cycles, metadata={"cycles": cycles})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for cycle in check.metadata["cycles"]:
            output.print_error("These modules import each other, directly or not:")
            for module in cycle:
                output.print_error(f"  {module}")
            output.new_line()


def _strongly_connected(edges: dict[str, list[str]]) -> list[set[str]]:
    """Tarjan's strongly connected components of ``edges``, without recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[set[str]] = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                components.append(component)
    return components
