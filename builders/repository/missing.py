"""One message for a model repository that is not where a command looked (trial 8 F15).

Every command's repository defaults to ``model_repository``, relative to the current directory;
run from another folder (a script called by its absolute path), the default names a folder
that does not exist. The message names the absolute path looked at and, when the current
directory has a ``model_repository/`` and the path given is another (a typo: ``validate model_repo``),
the ``-r`` that reads it. Never the toolkit's own install's repository (trial 23, T23-11: a user
working in their own project folder was told "pass /work/main/model_repository (this checkout's
repository)", the folder of the checkout the toolkit was installed from, someone else's models).
"""

from __future__ import annotations

from pathlib import Path

from core.errors import RepositoryError, ToolkitError

#: The model repository folder every command reads or writes unless told another
#: (``--repository`` / ``-r``; ``BuildOptions.repository``).
DEFAULT_REPOSITORY = Path("model_repository")


def not_found_parts(path: Path | str, flag: str = "-r") -> tuple[str, str]:
    """``(what is wrong, what to do)`` for a repository folder that is not there.

    Args:
        path: The repository as given (or defaulted).
        flag: The flag that names the repository, for the hint (``""``: a positional argument).

    Returns:
        E.g. ``("does not exist (looked at /home/me/model_repo: a relative path is from the
        current directory)", "pass -r model_repository (the model repository in the current directory,
        /home/me), or run `builders build` here first")``.
    """
    p = Path(path)
    state = "does not exist" if not p.exists() else "is not a folder"
    return state + _looked_at(p), _hint(p, flag, "run `builders build` here first")


def _looked_at(p: Path) -> str:
    """Where a relative ``p`` was looked for, in words (``""`` for an absolute one)."""
    return "" if p.is_absolute() else f" (looked at {p.absolute()}: a relative path is from the current directory)"


def _hint(p: Path, flag: str, or_else: str) -> str:
    """What to do about repository ``p``: the current directory's ``model_repository`` when that is another folder
    (``or_else``: the other way, e.g. "run `builders build` here first"), else build first or pass the one built;
    never the toolkit install's own (module docstring)."""
    here = DEFAULT_REPOSITORY.absolute()
    if here.is_dir() and here.resolve() != p.absolute().resolve():
        return (
            f"pass {flag}{' ' if flag else ''}{DEFAULT_REPOSITORY} (the model repository in the current directory, "
            f"{Path.cwd()}), or {or_else}"
        )
    return (
        f"run `builders build` first (it writes {DEFAULT_REPOSITORY} in the current directory) or pass "
        f"{flag + ' with ' if flag else ''}the folder it wrote"
    )


def repository_not_found(
    path: Path | str, *, what: str = "model repository", flag: str = "-r", error: type[ToolkitError] = RepositoryError
) -> ToolkitError:
    """The error for a repository folder that is not there (:func:`not_found_parts`), of class ``error``: a usage
    error of ``flag`` (exit 2, :mod:`core.cli`): the folder named is not there."""
    state, hint = not_found_parts(path, flag)
    return error(f"{what} {path} {state}", hint=hint, flag=flag)


def empty_repository(path: Path | str, state: str, flag: str = "-r") -> RepositoryError:
    """The error for a repository folder that is there but holds nothing a command can use (``state``:
    ``"holds no model folder with a config.pbtxt"``): it names the absolute path looked at and, as
    :func:`not_found_parts` does, the current directory's ``model_repository`` when that is another folder
    (trial 18, T18-14: an empty ``model_repository`` in the current directory said no path)."""
    p = Path(path)
    return RepositoryError(f"{path} {state}{_looked_at(p)}", hint=_hint(p, flag, "build into it"))
