"""The near-miss cascade as pure logic: what is forgiven, how the replacement keeps the file's style, and
what is never guessed."""

from __future__ import annotations

import pytest

from yoke.tools.edit_match import MatchError, apply_matches, place_edit


def edited(text: str, old: str, new: str, **kw) -> str:
    return apply_matches(text, place_edit(text, old, new, **kw))


def test_exact_match_is_plain_replacement():
    assert edited("a = 1\nb = 2\n", "b = 2", "b = 3") == "a = 1\nb = 3\n"


def test_tab_indentation_shift_uses_tabs_for_new_lines():
    text = "def f():\n\tif x:\n\t\ty()\n"
    result = edited(text, "if x:\n\ty()", "if x:\n\ty()\n\tz()")
    assert result == "def f():\n\tif x:\n\t\ty()\n\t\tz()\n"


def test_negative_shift_removes_the_extra_indentation():
    text = "if a:\n    b()\n    c()\n"
    assert edited(text, "        b()\n        c()", "        b()\n        d()") == "if a:\n    b()\n    d()\n"


def test_trailing_newline_in_old_string_is_honoured():
    text = "x = 1  \ny = 2\n"
    assert edited(text, "x = 1\n", "") == "y = 2\n"
    with pytest.raises(MatchError):  # the file's last line has no newline to remove
        place_edit("x = 1\ny = 2  ", "y = 2\n", "")


def test_leading_newline_in_old_string():
    text = "a()\n    b()  \nc()\n"
    assert edited(text, "\nb()", "\nbb()") == "a()\n    bb()\nc()\n"


def test_deletion_under_a_near_miss():
    text = "class A:\n    def f(self):\n        pass\n\n    def g(self):\n        return 1\n"
    assert edited(text, "def f(self):\n    pass\n\n", "") == "class A:\n    def g(self):\n        return 1\n"


def test_replace_all_applies_each_near_miss_with_its_own_shift():
    text = "if a:\n    go(1)  \nif b:\n        go(1)  \n"
    result = edited(text, "go(1)\n", "go(2)\n", replace_all=True)
    assert result == "if a:\n    go(2)\nif b:\n        go(2)\n"


def test_lookalikes_with_indentation():
    text = "def f():\n    msg = \u201cdon\u2019t\u201d\n    return msg\n"
    result = edited(text, 'msg = "don\'t"\nreturn msg', 'msg = "don\'t"\nreturn msg.upper()')
    assert result == "def f():\n    msg = \u201cdon\u2019t\u201d\n    return msg.upper()\n"


def test_model_typographic_quotes_for_an_ascii_file():
    # The unchanged quote characters keep the file's (ASCII) style.
    assert edited("say('hi')\n", "say(\u2018hi\u2019)", "say(\u2018bye\u2019)") == "say('bye')\n"


def test_whitespace_only_old_string_is_never_matched_loosely():
    with pytest.raises(MatchError):
        place_edit("a\n\n\nb\n", "  \n  ", "x")


def test_line_number_prefixes_must_point_at_the_match():
    text = "one\ntwo\nthree\n"
    assert edited(text, "2\ttwo", "2\tTWO") == "one\nTWO\nthree\n"
    with pytest.raises(MatchError):  # says line 3, but "two" is on line 2
        place_edit(text, "3\ttwo", "3\tTWO")


def test_tab_separated_data_is_not_mistaken_for_line_numbers():
    text = "id\tname\n1\tapple\n2\tpear\n"
    with pytest.raises(MatchError):  # "1\tApple" is not in the file; stripping "1\t" must not find "apple"
        place_edit(text, "1\tApple", "1\tPlum")


def test_exact_only_refuses_near_misses():
    with pytest.raises(MatchError) as err:
        place_edit("x = 1  \ny = 2\n", "x = 1\ny = 2", "z", exact_only=True)
    assert err.value.kind == "not_found"


def test_ambiguity_at_a_step_is_final():
    # Two trailing-whitespace candidates: refused even though a later, looser step is never consulted.
    text = "a = 1  \nb = 2\n\na = 1  \nb = 2\n"
    with pytest.raises(MatchError) as err:
        place_edit(text, "a = 1\nb = 2", "a = 3\nb = 2")
    assert err.value.kind == "ambiguous" and "starting at lines 1, 4" in str(err.value)


def test_mid_line_start_and_end_like_an_exact_substring():
    text = "    value = compute(a,  \n        b)  # done\n"
    result = edited(text, "compute(a,\n        b)", "compute(a,\n        c)")
    assert result == "    value = compute(a,  \n        c)  # done\n"  # the unchanged line is the file's own


def test_not_found_message_points_at_the_closest_lines():
    text = "".join(f"line {n}\n" for n in range(1, 40)) + "def target(x):\n    return x * 2\n"
    with pytest.raises(MatchError) as err:
        place_edit(text, "def target(y):\n    return y * 2", "pass")
    message = str(err.value)
    assert "lines 40-41" in message and "40\tdef target(x):" in message
    assert (
        "First difference: old_string line 1 is 'def target(y):', file line 40 is 'def target(x):'" in message
    )
