"""A contract type of our own for import-linter: a package imports only the standard library.

``lint-imports`` (configured in pyproject.toml) loads it by its dotted path; it runs from the
repository's root, which import-linter puts on ``sys.path``.
"""

from __future__ import annotations

import sys
from typing import Any

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output


class StandardLibraryOnlyContract(Contract):
    """``source_modules`` (and everything below them) import nothing outside the standard library
    and the project's own ``internal_packages``."""

    source_modules = fields.ListField(subfield=fields.StringField())
    internal_packages = fields.ListField(subfield=fields.StringField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        sources = [str(m) for m in self.source_modules]
        internal = {str(p) for p in self.internal_packages}
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
