"""Secret redaction: every provider kind is caught, ordinary prose is left alone."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nanomem.text.redact import KINDS, find_secrets, redact

PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)

SECRETS = [
    ("openai-key", "sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD"),
    ("openai-key", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_-AbCd"),
    ("anthropic-key", "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AAAA"),
    ("aws-key", "AKIAIOSFODNN7EXAMPLE"),
    ("github-token", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
    ("github-token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
    ("slack-token", "xoxb-2620093452-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("google-key", "AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI"),
    ("jwt", JWT),
    ("private-key", PRIVATE_KEY),
]


@pytest.mark.parametrize(("kind", "secret"), SECRETS)
def test_redact_replaces_each_provider_secret_with_its_kind(kind: str, secret: str) -> None:
    result = redact(f"use this: {secret} thanks")
    assert secret not in result.text
    assert result.text == f"use this: [REDACTED:{kind}] thanks"
    assert dict(result.counts) == {kind: 1}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer abc123def456ghi", "Authorization: Bearer [REDACTED:bearer-token]"),
        ("curl -H 'Authorization: bearer zzTOKENzz99'", "curl -H 'Authorization: bearer [REDACTED:bearer-token]'"),
        ("password=hunter22", "password=[REDACTED:password]"),
        ("passwd: s3cr3t!", "passwd: [REDACTED:password]"),
        ('{"api_key": "k-9f8e7d6c"}', '{"api_key": [REDACTED:password]}'),
        ("SECRET=abcd1234 rest", "SECRET=[REDACTED:password] rest"),
        ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
         "aws_secret_access_key = [REDACTED:aws-key]"),
        ("db at postgres://admin:pa55word@db.local/app", "db at postgres://admin:[REDACTED:password]@db.local/app"),
    ],
)
def test_redact_keeps_the_name_and_replaces_only_the_value(text: str, expected: str) -> None:
    result = redact(text)
    assert result.text == expected
    assert result.total == 1


@pytest.mark.parametrize(
    "text",
    [
        "Contract KX-7731 is due on 2025-03-14; budget 40,000 EUR.",
        "The bearer of bad news carries responsibilities.",
        "Ask about the task-management-for-everyone-plan tomorrow.",
        "She reset her password yesterday and the secret is safe with me.",
        "Use scikit-learn and the sk-learn alias; see AIza docs.",
        "Order ASIA-2025 shipped; token budget is 6000 tokens.",
        "risk-assessment-framework-2025-for-the-quarter",
        "max_tokens=4096 and api_key_rotation is monthly",
        "用户喜欢喝茶，不喝咖啡。",
    ],
)
def test_redact_leaves_ordinary_prose_and_identifiers_alone(text: str) -> None:
    result = redact(text)
    assert result.text == text
    assert result.total == 0


def test_redact_counts_several_secrets_per_kind() -> None:
    text = "a AKIAIOSFODNN7EXAMPLE b AKIAI44QH8DHBEXAMPLE c password=letmein99"
    result = redact(text)
    assert dict(result.counts) == {"aws-key": 2, "password": 1}
    assert result.text == "a [REDACTED:aws-key] b [REDACTED:aws-key] c password=[REDACTED:password]"


def test_find_secrets_reports_spans_without_overlap_in_text_order() -> None:
    text = f"x {JWT} y Authorization: Bearer {JWT}"
    matches = find_secrets(text)
    assert [m.kind for m in matches] == ["jwt", "jwt"]
    assert [text[m.start : m.end] for m in matches] == [JWT, JWT]


def test_redact_private_key_block_without_end_line_is_still_removed() -> None:
    text = "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nQ2xvdWQ=\n"
    result = redact(text)
    assert "MIIEowIBAAKCAQEA7" not in result.text
    assert result.counts == {"private-key": 1}


def test_redact_kinds_cover_every_documented_kind() -> None:
    covered = {kind for kind, _ in SECRETS} | {"bearer-token", "password"}
    assert covered == set(KINDS)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_redact_is_idempotent_and_never_grows_a_secret_back(text: str) -> None:
    once = redact(text)
    twice = redact(once.text)
    assert twice.text == once.text
    assert twice.total == 0


@pytest.mark.parametrize(
    "text",
    ["password=x1234", "https://u:pw12@h/x", "Authorization: Bearer abc123def456", f"t {JWT}"],
)
def test_redact_twice_finds_nothing_new(text: str) -> None:
    once = redact(text)
    assert once.total == 1
    assert redact(once.text).total == 0
