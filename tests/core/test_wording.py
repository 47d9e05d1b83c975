"""core.wording: a count agrees with its number, a float included; the word after it agrees too."""

from __future__ import annotations

from core.wording import agree, count, of, of_the


def test_a_float_count_is_written_as_g_writes_it_and_agrees():
    """A CPU request is a float: '1.6 CPU core(s)' became '1.6 CPU cores', and 1.0 is one core."""
    assert count(1.6, "CPU core") == "1.6 CPU cores"
    assert count(1.0, "CPU core") == "1 CPU core" and count(5.0, "CPU core") == "5 CPU cores"
    assert count(1_000_000, "visit") == "1000000 visits"  # an int is never written in :g's exponent form


def test_the_word_after_a_count_agrees_with_it():
    assert f"{count(1, 'variant')} {agree(1, 'has', 'have')}" == "1 variant has"
    assert f"{count(2, 'variant')} {agree(2, 'has', 'have')}" == "2 variants have"
    assert f"{of(1, 4, 'pair')} {agree(1, 'includes', 'include')}" == "1 of 4 pairs includes"


def test_all_of_a_count_is_said_as_the_whole():
    """Trial 10, F7: "but not 1 of the other 1 pair"."""
    assert of_the(1, 1, "other pair") == "the other pair"
    assert of_the(2, 2, "other pair") == "the 2 other pairs"
    assert of_the(1, 3, "other pair") == "1 of the 3 other pairs"
