"""The build's verdict on each co-located variant's export, in words beside the variant's name (issue 26):
as the run recorded it when it started (:attr:`perf.records.colocation.ColocationRecord.build_checks`), a
run saved before reading its repository now, once (:func:`with_build_checks`). The words are a sweep's
(:meth:`builders.repository.build_verdict.BuildVerdict.short`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from perf.colocate import judge
from perf.records.build_check import read_checks
from perf.records.colocation import ColocationRecord


def with_build_checks(record: ColocationRecord) -> ColocationRecord:
    """``record`` with every variant's build check: those it recorded, the rest read from its repository
    (one read; a run saved before they were recorded), not saved."""
    names = [v for m in record.models for v in m.variants]
    if missing := [n for n in names if n not in record.build_checks]:
        return dataclasses.replace(record, build_checks={**record.build_checks, **read_checks(record.repository, missing)})
    return record


def combination_words(record: ColocationRecord, combination: Mapping[str, str]) -> str:
    """:func:`perf.colocate.judge.describe` of ``combination`` with each variant's build verdict when it is not
    ``ok`` (``"mlp=mlp_onnx-fp16_cpu2 (build: onnx fp16 not verified in fp16 on this host), tiny=tiny_onnx_cpu1"``)."""
    checks = with_build_checks(record).build_checks
    said = {v: f" ({c.verdict.short()})" for v, c in checks.items() if c.verdict is not None}
    return judge.describe({m: v + said.get(v, "") for m, v in combination.items()})
