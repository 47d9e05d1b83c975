"""``--model`` given as a factory: ``path/to/file.py:factory`` or ``package.module:factory``.

The factory is a callable that returns the ``nn.Module`` with its weights loaded. A module
is imported with the current directory first on ``sys.path`` (as ``python -m`` does); a file
is imported from its path, with its own folder first on ``sys.path`` (so it can import the
files beside it). User code runs only here, and only when ``--model`` names it.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from builders.model.user_frame import user_frame
from core.errors import ModelSpecError
from core.names import close_names

#: The two forms of a factory, and an example of each (one wording for every message and help).
FACTORY_FORMS = "path/to/file.py:factory or package.module:factory"
#: Suffixes of model files accepted by ``--model``: TorchScript and ``torch.export`` archives (no factory in them).
TORCHSCRIPT_SUFFIXES = (".pt", ".pth", ".ts", ".jit")
EXPORT_SUFFIXES = (".pt2",)
FACTORY_EXAMPLE = "--model seqnet.py:make (calls make() in ./seqnet.py) or --model mypackage.models:make"


def looks_like_python_file(source: str) -> bool:
    """Whether ``--model`` names a Python file or folder rather than a built-in name: it ends in
    ``.py``, holds a path separator, or is an existing path."""
    return (
        source.endswith(".py") or os.sep in source or "/" in source or Path(source).exists() or _module_file(source) is not None
    )


def _module_file(source: str) -> Path | None:
    """``./NAME.py`` when ``--model NAME`` names a file of the current directory, else ``None``."""
    path = Path(f"{source}.py")
    return path if source.isidentifier() and path.is_file() else None


def file_without_factory(source: str) -> ModelSpecError:
    """The error for ``--model seqnet.py``: a Python file without the factory to call in it (or,
    first, a path that does not exist).

    The file is read as text (its top-level ``def`` names suggested as factories), never run.
    """
    path = _module_file(source) or Path(source)
    if not path.exists():  # the missing file first: adding ":factory" would only lead to "does not exist"
        return ModelSpecError(
            f"--model {source!r}: {path} does not exist (and is not a built-in model)",
            hint=f"--model takes {FACTORY_FORMS} (a relative path is from the current directory, {os.getcwd()}), "
            f"e.g. {FACTORY_EXAMPLE}",
            flag="--model",  # a typed path (exit 2, as a typed factory name is: trial 20, T20-6)
        )
    names = top_level_functions(path) if path.is_file() else []
    found = f"; top-level functions in {path}: {', '.join(names)}" if names else ""
    example = f"--model {source}:{names[0] if names else 'make'}"
    what = "is a Python file" if path.is_file() else "is a path"
    if path.is_dir():  # "DIR/:make" is no form --model takes (re-check 20, NEW-1): a .py file in it
        files = sorted(f.name for f in path.glob("*.py"))[:5]
        what = "is a folder" + (f" (its Python files: {', '.join(files)})" if files else " with no Python file")
        example = f"--model {path / (files[0] if files else 'model.py')}:make"
    if path != Path(source):
        what = f"names ./{path}"
    return ModelSpecError(
        f"--model {source!r} {what} without the factory to call in it (and is not a built-in model){found}",
        hint=f"--model takes {FACTORY_FORMS} (a function returning the nn.Module with its weights loaded), "
        f"with --spec or --input, e.g. {example}",
        flag="--model",
    )


def check_form(source: str, builtins: tuple[str, ...]) -> None:
    """Refuse a ``--model`` text whose form is wrong, from its text and the files it names only (no
    import: trial 21, T21-11, ``--model detector.py`` was refused after torch's 20 s import).

    Args:
        source: ``--model``'s text.
        builtins: The built-in models' names (taken as they are).

    Raises:
        ModelSpecError: a Python file or folder without ``:factory`` (:func:`file_without_factory`), a
            factory form with an empty side, a factory file that is missing or not ``.py``
            (:func:`import_factory`'s own checks, which run again there), or a missing ``.pt``/``.pt2`` file.
    """
    if source in builtins:
        return
    if source.endswith(TORCHSCRIPT_SUFFIXES + EXPORT_SUFFIXES):  # load_model's order
        if not Path(source).is_file():
            raise missing_model_file(Path(source))
        return
    if ":" in source:
        where, _ = split_factory(source)
        if where.endswith(".py") or os.sep in where or "/" in where:
            _factory_file(source, where)
    elif looks_like_python_file(source):
        raise file_without_factory(source)


def missing_model_file(path: Path) -> ModelSpecError:
    """The error for ``--model PATH.pt`` (or ``.pt2``) where no such file is."""
    return ModelSpecError(
        f"model file {path} does not exist",
        hint="pass an existing .pt (TorchScript) or .pt2 (torch.export) file",
        flag="--model",  # a typed path: exit 2, as a missing factory file (trial 20, T20-6)
    )


def split_factory(source: str) -> tuple[str, str]:
    """``("path/to/file.py" or "package.module", "factory")`` from ``--model``'s text (split at
    the last ``:``).

    Raises:
        ModelSpecError: either side is empty.
    """
    where, _, fn_name = source.rpartition(":")
    if not where or not fn_name or not fn_name.isidentifier():
        raise ModelSpecError(
            f"--model {source!r} is not {FACTORY_FORMS}",
            hint=f"name the module or file and the function that returns the model, e.g. {FACTORY_EXAMPLE}",
            flag="--model",
        )
    return where, fn_name


def recorded_source(source: str) -> str:
    """``--model``'s factory as a build records it: a file's by its absolute path (``/home/me/m/net.py:make``), so the
    in-process baseline, the precision study and ``triton-perf profile`` load it from any folder (s22z, Z-1: a build
    run in the model's folder with ``--model net.py:make`` recorded that text, and a sweep run from the checkout
    failed its eager baseline: "net.py does not exist"); ``package.module:factory`` as given. A manifest recording the
    text as typed is the same source (:func:`builders.repository.build_folder.same_source`)."""
    where, fn_name = split_factory(source)
    return f"{Path(where).resolve()}:{fn_name}" if _is_file(where) else source


def _is_file(where: str) -> bool:
    """Whether the module part of ``--model``'s factory is a file path (not ``package.module``)."""
    return where.endswith(".py") or os.sep in where or "/" in where


def import_factory(source: str) -> tuple[str, Callable[[], Any]]:
    """The factory ``--model`` names, imported (its module's top level runs here).

    Args:
        source: ``path/to/file.py:factory`` or ``package.module:factory``.

    Returns:
        The factory's name and the callable.

    Raises:
        ModelSpecError: the form is wrong, the file is missing, or the module or the name in it
            cannot be imported (the message says which, what was expected and how to fix it).
    """
    where, fn_name = split_factory(source)
    is_file = _is_file(where)
    if is_file:
        _factory_file(source, where)
    try:
        if is_file:
            module = _import_file(Path(where))
        else:
            with cwd_importable(os.getcwd()):
                module = importlib.import_module(where)
    except Exception as e:  # noqa: BLE001 - the user's module may raise anything at import
        raise _import_error(e, where, fn_name, is_file) from e
    factory = getattr(module, fn_name, None)
    if factory is None:
        names = sorted(
            n
            for n, v in vars(module).items()
            if inspect.isfunction(v) and v.__module__ == module.__name__ and not n.startswith("_")
        )
        close = close_names(fn_name, names, n=1)
        raise ModelSpecError(
            f"{where} has no {fn_name!r}"
            + (f"; its top-level functions: {', '.join(names)}" if names else "; it defines no top-level function"),
            hint=f"did you mean --model {where}:{close[0]}?"
            if close
            else f"--model takes {FACTORY_FORMS}: name a function of {where} that returns the nn.Module",
            flag="--model",
        )
    if not callable(factory):
        raise ModelSpecError(
            f"{fn_name!r} in {where!r} is a {type(factory).__name__}, not a function",
            hint=f"--model takes {FACTORY_FORMS}: name a function that returns the nn.Module",
            flag="--model",
        )
    return fn_name, factory


def _factory_file(source: str, where: str) -> None:
    """Refuse ``--model WHERE:factory`` whose file ``where`` is missing or not a ``.py`` file."""
    if not Path(where).is_file() or not where.endswith(".py"):
        raise ModelSpecError(
            f"--model {source!r}: {where} {'is not a .py file' if Path(where).is_file() else 'does not exist'}"
            + ("" if Path(where).is_absolute() else f" (a relative path is from the current directory, {os.getcwd()})"),
            hint=f"--model takes {FACTORY_FORMS}, e.g. {FACTORY_EXAMPLE}",
            flag="--model",
        )


def _import_error(e: Exception, where: str, fn_name: str, is_file: bool) -> ModelSpecError:
    """The error for ``--model WHERE:FN_NAME`` whose import raised ``e``, with advice that fits the
    cause: a syntax error names its file:line to fix; an error raised by the code of the file (its
    imports, its top level) names the line that raised it; only a module that is not found gets
    the advice about ``--model``'s form (the factory's name is looked up after the import)."""
    head = f"cannot import {fn_name!r} from {where!r}"
    if isinstance(e, SyntaxError):
        spot = f"{e.filename}:{e.lineno}" if e.filename else where
        code = f": {e.text.strip()}" if e.text and e.text.strip() else ""
        return ModelSpecError(
            f"{head}: {spot}: {type(e).__name__}: {e.msg}{code}",
            hint=f"fix line {e.lineno} of {e.filename or where} (`python -m py_compile {e.filename or where}` checks it); "
            f"{fn_name!r} is looked up once the file imports",
        )
    missing = getattr(e, "name", None) if isinstance(e, ModuleNotFoundError) else None
    if not is_file and missing and (where == missing or where.startswith(f"{missing}.")):
        return ModelSpecError(
            f"{head}: {type(e).__name__}: {e}",
            hint=f"--model takes {FACTORY_FORMS}; {where!r} must be a module importable from the current directory "
            f"{os.getcwd()}, PYTHONPATH or an installed package, e.g. {FACTORY_EXAMPLE}",
        )
    at = user_frame(e)
    line = f" at {at.split(' in ')[0]}" if at else ""  # "file.py:12 in <module>: code" -> " at file.py:12"
    place = f"the file {where}" if is_file else f"the module {where!r}"
    if missing:
        hint = (
            f"{place} imports {missing!r}, which is not installed in the toolkit's environment: install it there "
            f"(.venv/bin/pip install ...) or fix the import{line}"
        )
    else:
        hint = f"fix the error{line}: the top level of {place} runs when --model imports it"
    return ModelSpecError(f"{head}: {type(e).__name__}: {e}" + (f"\n  raised at {at}" if at else ""), hint=hint)


def _import_file(path: Path) -> Any:
    """Import a Python file as a module named after its stem (registered in ``sys.modules``,
    so its classes' source can be read, as TorchScript's scripting does)."""
    spec = importlib.util.spec_from_file_location(path.stem, path.resolve())
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    with cwd_importable(str(path.resolve().parent)):
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(path.stem, None)
            raise
    return module


def top_level_functions(path: Path) -> list[str]:
    """The names of the top-level ``def``s of a Python file, read as text (nothing runs)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return []
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]


def may_define(path: Path, name: str) -> bool:
    """Whether the Python file ``path`` can bind ``name`` at its top level, read as text (nothing runs):
    ``False`` only when no ``def``, ``class``, assignment or import there binds it and no ``import *``
    could; a file that does not parse is ``True`` (its import says what is wrong). A check made before
    anything is built (``make demo``'s ``DEMO_MODEL``); :func:`import_factory` is the real one."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return True
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(a.name == "*" for a in node.names):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in (name, "__getattr__"):
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name.split(".")[0]) == name for a in node.names):
            return True
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id == name:
            return True
        if isinstance(node, ast.Global) and name in node.names:
            return True
    return False


@contextlib.contextmanager
def cwd_importable(folder: str) -> Iterator[None]:
    """``folder`` first on ``sys.path`` while a user's factory is imported."""
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        yield
    finally:
        if added:
            with contextlib.suppress(ValueError):
                sys.path.remove(folder)
