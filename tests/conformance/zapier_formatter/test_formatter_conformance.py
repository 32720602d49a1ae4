"""Every Formatter transform the runtime says it supports does what its pinned public source says."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from queue_core.compat._zapier_formatter import SUPPORTED, canonical, format_step

from . import FormatterCase
from .cases_date import CASES as DATE
from .cases_number import CASES as NUMBER
from .cases_text import CASES as TEXT
from .cases_util import CASES as UTIL

ALL: list[FormatterCase] = [*TEXT, *NUMBER, *DATE, *UTIL]


def key(case: FormatterCase) -> tuple[str, str]:
    return canonical(case.action, str(case.params["transform"]))


@pytest.mark.parametrize("case", ALL, ids=lambda c: f"{key(c)[0]}:{key(c)[1]}")
def test_the_case_gives_the_output_its_source_states(case: FormatterCase) -> None:
    assert case.source.startswith("https://")
    assert format_step(case.action, case.params) == case.expected


def test_every_supported_transform_has_a_pinned_case() -> None:
    covered = Counter(key(case) for case in ALL)
    assert sorted(pair for pair in SUPPORTED if not covered[pair]) == []


def test_no_case_pins_a_transform_outside_supported() -> None:
    assert sorted({key(case) for case in ALL} - SUPPORTED) == []


def test_the_committed_proved_table_is_the_one_the_cases_give() -> None:
    from .proved import TARGET, table

    proved, failures = table()
    assert failures == []
    assert json.loads(TARGET.read_text(encoding="utf-8")) == proved, "run proved.py --write"
