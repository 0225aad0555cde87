"""Credential detection (memfs.credentials) at the edges of its rules: disguises whose trigger
is present but whose full rule is not, text whose lowering changes its length, a label with no
value within reach, code after a login word, the value tests' plain cases, fillers typed in
order, names that call a value fake, user:password pairs and host:port values."""

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
    secret = "ghp_" + "Q7x2Lm9Vr4Tz8Kp1Wn6Ys3Hd5Jf0Gb2Nc8Rq"
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


def test_fillers_typed_in_order_are_placeholders_and_drawn_keys_are_not() -> None:
    from memfs.credentials.values import is_placeholder

    for filler in (
        "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6",  # hex-like filler, letters and digits in turn
        "SHPSS_A1B2C3D4E5F6A7B8C9D0E1F2A3B4C5D6",
        "abcxyz123",  # nothing but runs of three
        "abc123def456ghi789jkl012mno345",
        "AKIAIOSFODNN7SECRETS",  # AWS's documentation key, varied
        "mypassword",
        "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",  # in turn, in either case
        "1a2b3C4d-5E6f-7g8H-9i0J-k1l2M3n4o5p6",  # and across a UUID's hyphens
    ):
        assert is_placeholder(filler), filler
    for key in (
        "Q7x2Lm9Vr4Tz8Kp1Wn6Ys3Hd5Jf0Gb2Nc8Rq",  # mixed case, drawn
        "1opov9oy6ycsi675cyj2gp3jkjt8pw7d",
        "g8wjz4xjtdaoswrmbl2ypcu0neq4cvr4",
        "abcdqwer",  # one run of four, then letters out of order
    ):
        assert not is_placeholder(key), key


def test_a_value_whose_own_name_calls_it_fake_is_not_refused() -> None:
    key = "sk-proj-" + "mpjtr05CFsJqs4TAeKlCT3BlbkFJsh1KtN0SUjTPeJiagE8K"
    for name in ("BAD_KEY=", 'nonMatchingToken := "', "fakeApiKey: ", "mock_token = "):
        assert find_credentials(name + key) == [], name
    for text in (f"OPENAI_API_KEY={key}", f"a bad idea: {key}", f"badge_token = {key}"):
        assert find_credentials(text), text


def test_a_one_case_value_starting_with_1_is_a_key_not_a_bitcoin_address() -> None:
    assert find_credentials("The yousign token is 1opov9oy6ycsi675cyj2gp3jkjt8pw7d")
    assert not find_credentials("The wallet address is 1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2")


def test_a_user_and_password_pair_after_a_credential_word_is_refused() -> None:
    (finding,) = find_credentials("the curl key is roger23@gmail.com:pQ9wTxu4Fg for the job")
    assert finding.preview.startswith("roge")
    assert find_credentials("token: redis:Summer2024!")
    assert not find_credentials("the key: std::string")


def test_a_host_and_port_after_a_credential_word_is_no_secret() -> None:
    assert not find_credentials("the api key is localhost:8080")
    assert not find_credentials("the api key is db.internal:5432")


def test_an_unlock_phrase_is_found_after_its_noun_inside_another_word() -> None:
    # "word" first stands in "passwords", with no relative word after it
    text = "passwords, and the codes to get into the safe: Xk9#mP2vL7"
    (finding,) = find_credentials(text)
    assert text[finding.start : finding.end] == "Xk9#mP2vL7"


def test_a_curl_password_is_found_with_the_user_or_the_password_quoted() -> None:
    for text in (
        "curl --user ops:'Xk9mP2vL7qRt' -X PATCH https://api.example.com",
        'curl -u "ops":"Xk9mP2vL7qRt" https://api.example.com',
    ):
        (finding,) = find_credentials(text)
        assert text[finding.start : finding.end] == "Xk9mP2vL7qRt"
    assert find_credentials('curl -u "${username}":"${password}" https://api.example.com') == []


def test_a_label_after_an_acronym_in_an_identifier_is_a_label() -> None:
    for text, secret in (
        ("DBPassword: Xk9#mP2vL7qRt", "Xk9#mP2vL7qRt"),
        ('APIToken = "Xk9mP2vL7qRtZ3wN8bY4cQ1fHs6"', "Xk9mP2vL7qRtZ3wN8bY4cQ1fHs6"),
    ):
        (finding,) = find_credentials(text)
        assert text[finding.start : finding.end] == secret


def test_a_numbered_label_is_a_label_and_a_longer_word_is_not() -> None:
    for text in ('sumoKey2 = "Xk9mP2vL7qRtZ3wN8bY4cQ1f"', "acme_token_2: Xk9mP2vL7qRtZ3wN8bY4cQ1f"):
        (finding,) = find_credentials(text)
        assert text[finding.start : finding.end] == "Xk9mP2vL7qRtZ3wN8bY4cQ1f"
    assert find_credentials("token2048x: Xk9mP2vL7qRtZ3wN8bY4cQ1f") == []


def test_a_filler_typed_in_order_with_one_slip_is_a_placeholder_and_stored() -> None:
    from memfs.credentials.values import is_placeholder

    for filler in (
        "abdcefgh",  # two neighbours swapped in the middle
        "bacdefgh",  # at the start
        "abcdefhg",  # at the end
        "12354678",  # digits
        "hgfedbca",  # typed down the alphabet
        "Qx7vR2mK9tLw4abdcefghZp3Nq8Ys5Jd0",  # inside a drawn-looking value
    ):
        assert is_placeholder(filler), filler
    for key in (
        "aacdefgh",  # a letter twice: not a run with a slip
        "abdcefhg",  # two slips
        "abcd1efg",  # a digit cuts the window
        "Qx7vR2mK9tLw4Zp3Nq8Ys5Jd0",  # three in order nowhere
        "Qx7vR2mK9tLw4abcZp3Nq8Ys5Jd0",  # three in order, no window of eight
        "abc89:;<=>?",  # eight neighbouring characters, not letters or digits
        "Qx7vR2mK9tLw4abdcefgh" + "Zp3Nq8Ys5Jd0" * 20,  # a blob, longer than any key
    ):
        assert not is_placeholder(key), key
    key = "sk-" + "Qx7vR2mK9tLw4abdcefghZp3Nq8Ys5Jd0"
    assert find_credentials(f"OPENAI_API_KEY={key}\n") == []


def test_a_mailgun_key_with_letters_beyond_hex_is_refused_and_a_word_after_key_is_not() -> None:
    key = "key-" + "q7x2lm9vr4tz8kp1wn6ys3hd5jf0gb2n"  # 32 lower-case letters and digits
    (finding,) = find_credentials(f"mailgun: {key}\n")
    assert finding.kind == "Mailgun API key"
    hexed = "key-" + "3f9a0c7e1b5d2a8f6c4e0b9d7a1f3c5e"
    assert [f.kind for f in find_credentials(f"{hexed}\n")] == ["Mailgun API key"]
    assert find_credentials("see key-managementserviceconfigurations for the rotation\n") == []
