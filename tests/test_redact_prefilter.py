"""The redaction prefilter finds exactly what the full scan finds.

``find_secrets`` skips a rule when the text lacks every needle of it (or a run without
whitespace long enough for it). These tests compare the fast path with ``prefilter=False`` on
the secret corpus of issue 11 and on seeded random texts with planted secrets: single-line and
multi-line (PEM blocks), in other cases, with the non-ASCII letters that ``(?i)`` folds to
ASCII, split across lines, glued to other tokens.
"""

from __future__ import annotations

import random
import string

import pytest

from nanomem.text.redact import find_secrets
from nanomem.text.secretpatterns import RULES, fold_case
from tests.secret_kinds import FAKES, FALSE_POSITIVES, MORE_FAKES

WORDS = ("the", "budget", "of", "project", "Atlas", "is", "4,500", "EUR", "Lyon", "tea", "key",
         "token", "TOKEN", "pass", "password", "Password", "PASSWORD", "passphrase is", "passcode:",
         "passwd=", "pwd:", "secret", "api", "API_KEY", "PGPASSWORD=", "DB_PASSWD=", "MY_PASSPHRASE =",
         "Authorization:", "Bearer", "bearer", "AccountKey=", "aws", "AWS_SECRET_ACCESS_KEY",
         "pin code", "wifi key", "wi-fi key", "密码是", "口令:", "://", "user:", "@host", "=",
         ": ", "'", '"', "sk-", "hf_", "SG.", "eyJ", "xoxb-", "AIza", "ghp_", "GOCSPX-",
         "-----BEGIN", "PRIVATE KEY-----", "https://hooks.slack.com/services/", "_live_",
         "Log in:", "log-in", "sign in", "Signin =", "pw:", "PWD", "PIN is", "pass =", "login code:",
         "登录：", "密码发出来了：", "Kite9!sky", "Ferr@n2291x", "Issue#42", "x!Y", "oops", "wrong window",
         "by accident", "Marmalade1952", "Summer2024!", "Kestrel#2024", "打错", "4111 1111 1111 1111",
         "378282246310005", "glpat-", "whsec_", "ya29.", "npm_", "DB_PASS=", "TOKEN=")
SEPARATORS = (" ", " ", " ", "\n", "\n\n", "\t", "", "=", ": ", ", ", "; ", "/", "-", "_")
FOLDS = {"s": "\u017f", "k": "\u212a", "i": "\u0131", "I": "\u0130"}


def _cased(rng: random.Random, text: str) -> str:
    choice = rng.randrange(6)
    if choice == 0:
        return text.upper()
    if choice == 1:
        return text.lower()
    if choice == 2:
        return text.swapcase()
    if choice == 3:  # letters that (?i) matches to ASCII i, s and k
        return "".join(FOLDS.get(c, c) if rng.random() < 0.5 else c for c in text)
    return text


def _token(rng: random.Random, alphabet: str, low: int, high: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(low, high)))


def _pem(rng: random.Random) -> str:
    kind = rng.choice(["RSA ", "EC ", "OPENSSH ", ""])
    body = "\n".join(_token(rng, string.ascii_letters + string.digits + "+/", 20, 64)
                     for _ in range(rng.randint(1, 4)))
    end = f"\n-----END {kind}PRIVATE KEY-----" if rng.random() < 0.7 else ""
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}{end}"


def planted_text(seed: int) -> str:
    """Prose with secrets planted in it, some changed in case or glued to their neighbours."""
    rng = random.Random(seed)
    fakes = [f.text for f in (*FAKES, *MORE_FAKES)] + list(FALSE_POSITIVES)
    parts = []
    for _ in range(rng.randint(5, 60)):
        pick = rng.random()
        if pick < 0.45:
            parts.append(rng.choice(WORDS))
        elif pick < 0.7:
            fake = rng.choice(fakes)
            parts.append(_cased(rng, fake) if rng.random() < 0.3 else fake)
        elif pick < 0.75:
            parts.append(_token(rng, string.ascii_letters + string.digits + "+/_-", 18, 70))
        elif pick < 0.8:  # password-shaped, some too long
            parts.append(_token(rng, string.ascii_letters + string.digits + "!#$%&*=?@^~.-", 4, 70))
        elif pick < 0.88:
            parts.append(_token(rng, rng.choice(["0123456789abcdef", "0123456789ABCDEF"]), 28, 70))
        elif pick < 0.94:
            parts.append(_pem(rng))
        else:
            parts.append(_cased(rng, rng.choice(WORDS)))
        parts.append(rng.choice(SEPARATORS))
    return "".join(parts)


def corpus() -> list[str]:
    texts = [f.text for f in (*FAKES, *MORE_FAKES)] + list(FALSE_POSITIVES)
    texts.append("\n".join(texts))
    return texts


@pytest.mark.parametrize("text", corpus())
def test_find_secrets_prefilter_agrees_with_full_scan_on_the_secret_corpus(text: str) -> None:
    assert find_secrets(text) == find_secrets(text, prefilter=False)


def test_find_secrets_prefilter_agrees_with_full_scan_on_planted_random_text() -> None:
    found = 0
    for seed in range(1500):
        text = planted_text(seed)
        full = find_secrets(text, prefilter=False)
        assert find_secrets(text) == full, (seed, text)
        found += len(full)
    assert found > 1500  # the texts do carry secrets


def test_find_secrets_prefilter_agrees_when_a_secret_spans_lines() -> None:
    pem = ("notes\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq7BFUqs3lQmjVXMTfKXlT3\n"
           "Zb9Qk1nT7xPj2vL8mW4cR6sY0dF3gH5jK7lN9pQ==\n-----END RSA PRIVATE KEY-----\nmore")
    full = find_secrets(pem, prefilter=False)
    assert [m.kind for m in full] == ["private-key"]
    assert find_secrets(pem) == full


def test_rules_every_match_holds_a_needle_or_a_long_run() -> None:
    """The property the prefilter rests on, checked rule by rule on the match itself (and the
    three characters before it, where a lookbehind such as ``(?<=://)`` looks)."""
    checked = 0
    for seed in range(1500):
        text = planted_text(seed)
        for rule in RULES:
            for match in rule.pattern.finditer(text):
                checked += 1
                got = match.group(0)
                if rule.needles:
                    got = text[max(0, match.start() - 3):match.end()]
                    hay = fold_case(got) if rule.folded else got
                    assert any(n in hay for n in rule.needles), (rule.kind, got)
                else:
                    assert rule.min_run and max(map(len, got.split())) >= rule.min_run
    assert checked > 1500


def test_rules_every_near_cue_holds_a_near_needle() -> None:
    """The prefilter of the near rule: a text without its needles has no cue for it."""
    near = [rule for rule in RULES if rule.near is not None]
    assert near
    texts = [planted_text(seed) for seed in range(300)] + corpus()
    checked = 0
    for rule in near:
        assert rule.near is not None and rule.near_needles
        assert all(n == fold_case(n) for n in rule.near_needles)
        for text in texts:
            for match in rule.near.finditer(text):
                checked += 1
                assert any(n in fold_case(match.group(0)) for n in rule.near_needles), match.group(0)
    assert checked > 100


def test_rules_needles_of_a_case_insensitive_rule_are_lower_case() -> None:
    for rule in RULES:
        assert rule.needles or rule.min_run, rule.kind
        if rule.folded:
            assert all(n == fold_case(n) for n in rule.needles), rule.kind


def test_fold_case_folds_what_ignorecase_matches_to_ascii() -> None:
    assert fold_case("PA\u017f\u017fWORD \u212aEY p\u0131n P\u0130N") == "password key pin pin"
