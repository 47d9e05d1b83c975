"""A pattern that matches no variant gets the pattern meant and, in a repository of many variants,
the variants by model (trial 11, F15: `--variants 'tabnett_*'` listed all 35 names on one line)."""

from __future__ import annotations

import itertools

from builders.repository.patterns import LISTED, meant, unmatched_error
from core.naming import NameParts, variant_name

KNOWN = [
    variant_name(NameParts(m, f, count=c, dynamic_batching=db, max_queue_delay_us=500 if db else 0))
    for m, f, c, db in itertools.product(("mlp", "tabnet", "kwspot"), ("onnx", "torchscript"), (1, 2), (True, False))
]


def test_a_mistyped_models_pattern_is_told_the_pattern_meant() -> None:
    assert meant("tabnett_*", KNOWN) == "tabnet_*"
    assert meant("kwspt_onnx_*", KNOWN) == "kwspot_onnx_*"
    assert meant("tabnet_onnx_cpu1_db50_mbs64", KNOWN) == "tabnet_onnx_cpu1_db500_mbs64"
    assert meant("resnet_*", KNOWN) is None  # nothing close: no guess
    assert meant("tabnet_trt_*", KNOWN) is None  # the model is right, the rest matches nothing
    # trial 27, T27-16: a pattern whose separator is mistyped had no "_" to part its model at: no hint
    assert meant("tabnet-onnx*", KNOWN) == "tabnet_onnx*" and meant("kwspot.ts_*", KNOWN) == "kwspot_ts_*"


def test_many_variants_are_listed_by_model_few_by_name() -> None:
    e = unmatched_error("repo/index.json", ["tabnett_*"], KNOWN)
    assert e.message == "no variant in repo/index.json matches 'tabnett_*' (did you mean 'tabnet_*'?)"
    assert len(KNOWN) > LISTED and e.hint == (
        "known: mlp_* (8 variants), tabnet_* (8 variants), kwspot_* (8 variants); `builders variants` prints a grid's names"
    )
    few = KNOWN[:3]
    assert unmatched_error("r", ["x*"], few).hint == f"known: {', '.join(few)}"


def test_a_prefix_of_several_names_is_told_to_add_a_star() -> None:
    """Trial 24, T24-19: `--variants segnet_onnx` (a prefix, no `*`) got the known list and no hint."""
    assert meant("tabnet_onnx", KNOWN) == "tabnet_onnx*"
    e = unmatched_error("model_repository", ["tabnet_onnx"], KNOWN, flag="--variants")
    assert "'tabnet_onnx' (did you mean 'tabnet_onnx*'?)" in e.message
    assert meant("tabnet_onnx_cpu1_db50_mbs64", KNOWN) == "tabnet_onnx_cpu1_db500_mbs64"  # a name still gets the name


def test_every_mistyped_part_of_a_pattern_is_told_the_pattern_meant() -> None:
    """s22z, Z-6: a letter swap past the model part (`'twoin_onxx_*'`) got no did-you-mean while the model's did."""
    assert meant("tabnet_onxx_*", KNOWN) == "tabnet_onnx_*"
    assert meant("tabnett_onxx_*", KNOWN) == "tabnet_onnx_*"
    assert meant("tabnet onnx*", KNOWN) == "tabnet_onnx*"  # a space, as '-' and '.'


def test_a_pattern_that_matches_variants_gone_gets_no_other_models_pattern() -> None:
    """s22z, Z-5: `'twoin_onnx*'`, matching only the removed model's entries, was told "did you mean
    'twoin_v2_onnx*'", another model; the hint names them gone (gone_words)."""
    known = [n.replace("mlp_", "mlp_v2_") for n in KNOWN if n.startswith("mlp_")]
    assert meant("mlp_onnx*", known) is not None  # alone, the closest pattern is the other model's
    e = unmatched_error("repo/index.json", ["mlp_onnx*"], known, gone=[n for n in KNOWN if n.startswith("mlp_onnx")])
    assert e.message == "no variant in repo/index.json matches 'mlp_onnx*'"


def test_a_pattern_with_a_space_is_told_the_underscore_and_no_demo_names() -> None:
    """s22z, Z-6: `'twoin onnx*'` was refused with "give names such as mlp_onnx_cpu2_nodb_mbs64", the demo's model."""
    import pytest

    from core.naming import variant_patterns

    with pytest.raises(ValueError) as e:
        variant_patterns("twoin onnx*")
    assert "(did you mean 'twoin_onnx*'?)" in str(e.value) and "mlp" not in str(e.value)


def test_a_model_name_with_a_dash_or_a_dot_gets_the_pattern_meant() -> None:
    """s23r m5: a model name may hold '-' and '.' (core.naming.NAME_RE); its mistyped pattern got the pattern meant
    before the pattern was underscored first for the did-you-mean, and nothing since ('my-nett_onnx*')."""
    known = ["my-net_onnx_cpu1_nodb_mbs8", "resnet.v2_onnx_cpu1_nodb_mbs8"]
    assert meant("my-nett_onnx*", known) == "my-net_onnx*"
    assert meant("resnet.v3_onnx*", known) == "resnet.v2_onnx*"
    assert meant("my-net_onxx*", known) == "my-net_onnx*"
    assert meant("tabnet-onnx*", KNOWN) == "tabnet_onnx*"  # a mistyped separator still gets the underscored form
