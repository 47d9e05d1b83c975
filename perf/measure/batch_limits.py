"""Whether any variant can take a command's ``--batch-sizes``: the one rule of every command that sends
client batch sizes (``sweep``, ``coldstart``), checked before anything starts.

A size fits a variant at or below its ``max_batch_size`` (``0``: it does not batch, batch 1 only). A size above
one variant's limit and within another's is left out for that one (said where it is measured); sizes of which
none fits any variant are refused, naming the sizes, each variant's ``max_batch_size`` and what to give (trial 27,
T27-8: ``coldstart --batch-sizes 128`` above every variant's limit measured batch 1 only and exited 0, where the
sweep refused the same mistake).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.errors import FlagError


def fits(batch_size: int, max_batch_size: int) -> bool:
    """Whether a variant of ``max_batch_size`` takes requests of ``batch_size`` (``0``: batch 1 only)."""
    return batch_size == 1 if max_batch_size == 0 else 0 < batch_size <= max_batch_size


def batch_sizes_error(
    limits: Mapping[str, int], batch_sizes: Sequence[int], of: str, nothing: str, unread: Sequence[str] = ()
) -> FlagError:
    """The refusal of ``batch_sizes`` that no variant of ``limits`` (``{variant: max_batch_size}``) takes.

    Args:
        limits: Each variant's ``max_batch_size``.
        batch_sizes: The sizes given.
        of: Whose variants, in words (``"this sweep"``).
        nothing: What was not done (``"nothing was started or measured"``).
        unread: ``"variant: why"`` of the variants whose limit could not be read.
    """
    several = len(batch_sizes) > 1
    top = max([max(1, m) for m in limits.values()] or [1])
    each = ", ".join(f"{n} {m}" + (" (batch 1 only)" if m == 0 else "") for n, m in sorted(limits.items()))
    return FlagError(
        f"{'batch sizes' if several else 'batch size'} {', '.join(map(str, batch_sizes))} "
        f"{'are' if several else 'is'} above the max_batch_size of every variant of {of} ({each})"
        + (f"; not readable: {'; '.join(unread)}" if unread else "")
        + f": {nothing}",
        flag="--batch-sizes",
        hint=f"give --batch-sizes {top} or less, or build variants with a larger max_batch_size "
        "(`builders build --max-batch-sizes`)",
    )


def refuse_unsendable(limits: Mapping[str, int], batch_sizes: Sequence[int], of: str, nothing: str) -> None:
    """Refuse ``batch_sizes`` when not one of them fits any variant of ``limits`` (module docstring); nothing to
    refuse without sizes or without a variant whose limit was read.

    Raises:
        FlagError: :func:`batch_sizes_error`.
    """
    if not batch_sizes or not limits or any(fits(b, m) for b in batch_sizes for m in limits.values()):
        return
    raise batch_sizes_error(limits, batch_sizes, of, nothing)
