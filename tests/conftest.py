"""The test run's settings: how many examples each Hypothesis property tries (a profile, never a
count in a decorator), and the markers that choose a subset.

Profiles (`DOI_TEST_PROFILE`, or pytest's `--hypothesis-profile`):
- `dev`, the default of `./scripts/test`: enough examples to catch a rule broken on one side;
- `thorough`, what CI runs (`.ci/run` sets it): ten times as many, for the rare input;
- `quick`, with `-m quick`: a few examples each, for a loop of a minute.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# No deadline: a shared core may stall any one example; the run's length is what is bounded.
_COMMON = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("quick", _COMMON, max_examples=15)
settings.register_profile("dev", _COMMON, max_examples=100)
settings.register_profile("thorough", _COMMON, max_examples=1000)
PROFILE = os.environ.get("DOI_TEST_PROFILE", "dev")
settings.load_profile(PROFILE)

# The modules whose tests, all of them, run in seconds: the spec's tables, the matcher in both
# languages, the layers, the records' readers in process. `-m quick` selects them (with the
# quick profile, under a minute on two cores); the rest start servers, clusters, processes or
# scan corpora.
QUICK_MODULES = frozenset(
    {
        "test_spec",
        "test_layers",
        "test_components",
        "test_citations",
        "test_fast_path",
        "test_cscan",
        "test_chtml",
        "test_syntax",
        "test_table",
        "test_merge",
        "test_windows",
        "test_input_type",
        "test_encodings",
        "test_jsonl",
        "test_cjsonl",
        "test_csvrecords",
        "test_hostile",
        "test_properties",
        "test_errors",
    }
)


def pytest_configure(config: pytest.Config) -> None:
    global PROFILE
    if config.getoption("-m", default="") == "quick" and "DOI_TEST_PROFILE" not in os.environ:
        PROFILE = "quick"
        settings.load_profile(PROFILE)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        module = item.nodeid.split("::", 1)[0].rsplit("/", 1)[-1].removesuffix(".py")
        if module in QUICK_MODULES and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.quick)


def pytest_report_header(config: pytest.Config) -> str:
    return f"hypothesis profile: {PROFILE}"
