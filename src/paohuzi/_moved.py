"""The modules that moved in the layout of issue 23 (D102), importable by their old names for
one release: ``import paohuzi.game`` gives :mod:`paohuzi.engine.game` itself (the same module
object, so its classes are the same classes) and warns with a :class:`DeprecationWarning`."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

_ENGINE = (
    "action_ids",
    "actions",
    "analysis",
    "cards",
    "chi",
    "evaluator",
    "fairdeal",
    "game",
    "groups",
    "match",
    "mingtang",
    "observation",
    "position",
    "record",
    "rules",
    "scoring",
)
_TOOLS = ("distributed", "ladder", "review", "simulation", "tournament", "workers")

MOVED: dict[str, str] = {
    **{f"paohuzi.{name}": f"paohuzi.engine.{name}" for name in _ENGINE},
    **{f"paohuzi.{name}": f"paohuzi.tools.{name}" for name in _TOOLS},
    "paohuzi.samples": "paohuzi.engine.holdings",
    "paohuzi.train": "paohuzi.tools.dmc",
    "paohuzi.training": "paohuzi.tools.dmc_settings",
    "paohuzi.native_core": "paohuzi.native.core",
    "paohuzi.native_game": "paohuzi.native.core",
}
"""Each old module name and where the module is now."""


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old name and loads it as the module it moved to."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(
            f"{spec.name} is deprecated: import {new} (issue 23, D102)",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """The module is already loaded, under its new name."""


def install() -> None:
    """Let the old names be imported (once; :mod:`paohuzi` calls it)."""
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.append(_Alias())
