"""Card numbers: the issuer prefix, the printed grouping and the Luhn check decide."""

from __future__ import annotations

import pytest

from nanomem.text.cards import card_number, luhn_valid
from nanomem.text.redact import redact


@pytest.mark.parametrize(
    "number",
    ["4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111", "5555555555554444",
     "2223003122003222", "378282246310005", "3782 822463 10005", "6011111111111117",
     "3530111333300000", "30569309025904", "6200000000000005"],
)
def test_card_number_accepts_the_test_numbers_of_each_issuer(number: str) -> None:
    assert card_number(number)
    assert redact(f"card {number} ok").text == "card [REDACTED:card-number] ok"


@pytest.mark.parametrize(
    "number",
    ["4111 1111 1111 1112",  # check digit
     "41 11 11 11 11 11 11 11", "4111 1111-1111 1111", "411 1111 1111 11111",  # grouping
     "7111111111111114", "1234567890123452",  # no issuer
     "4222222222222",  # 13-digit Visa: left out
     "37828224631000"],  # Amex length
)
def test_card_number_refuses_a_wrong_check_digit_grouping_issuer_or_length(number: str) -> None:
    assert not card_number(number)


def test_luhn_valid_follows_the_textbook_examples() -> None:
    assert luhn_valid("79927398713")
    assert not any(luhn_valid(f"7992739871{d}") for d in "012456789")


@pytest.mark.parametrize(
    "text",
    ["seed 4220315081820346526", "ISBN 978-0-306-40615-7", "v4111111111111111", "4111111111111111.5",
     "IBAN DE89 3704 0044 0532 0130 00", "call +44 7911 123456 or 0612345678"],
)
def test_redact_leaves_numbers_that_are_no_card_alone(text: str) -> None:
    assert redact(text).text == text
