"""Credential detection (memfs.credentials) at the edges of its rules: disguises whose trigger
is present but whose full rule is not, text whose lowering changes its length, a label with no
value within reach, code after a login word, and the value tests' plain cases."""

from __future__ import annotations

from memfs.credentials import find_credentials
from memfs.credentials.disguises import views
from memfs.credentials.values import shannon_entropy, typed_secret


def whys(text: str) -> list[str]:
    return [why for why, _, _ in views(text)]


def test_a_spacing_trigger_without_four_spaced_letters_is_no_view() -> None:
    assert whys("x a b yz and c.d.e") == []
    assert whys("say p a s s w o r d now") == ["spaced-out letters"]


def test_a_file_opening_a_frontmatter_it_never_closes_has_no_label_view() -> None:
    assert whys("---\nname: prod db password\nhunter2Secret!") == []
    closed = "---\nname: prod db password\n---\nhunter2Secret!\n"
    assert "label in the frontmatter, value in the body" in whys(closed)


def test_a_secret_after_text_whose_lowering_changes_its_length_is_found_where_written() -> None:
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    text = f"İstanbul office\ntoken {secret}\n"
    (finding,) = find_credentials(text)
    assert finding.line == 2
    assert text[finding.start : finding.end] == secret


def test_a_password_label_with_only_fences_and_blanks_after_it_finds_nothing() -> None:
    assert find_credentials("The password:\n```\n```\n```\nSummer2024!x\n") == []


def test_code_after_a_login_word_and_slash_is_not_a_password() -> None:
    assert find_credentials("login admin / (ROOT / t).exists()\n") == []


def test_value_rules_plain_cases() -> None:
    assert shannon_entropy("") == 0.0
    assert shannon_entropy("abab") == 1.0
    assert typed_secret("4711#0815") is False  # no letter: a number with a symbol
    assert typed_secret("UserForm2", strong=True) is False  # an identifier
    assert typed_secret("Us3r-F0rm!x", strong=True) is True
