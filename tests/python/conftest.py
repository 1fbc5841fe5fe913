"""Shared fixtures of the Python tests (run by ctest: label `python`, with
PYTHONPATH at the build tree's python folder, SETTEE_BIN the settee program
and SETTEE_SOURCE_DIR the source tree)."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
SOURCE = os.environ.get("SETTEE_SOURCE_DIR", os.path.abspath(os.path.join(HERE, "..", "..")))


@pytest.fixture
def scenes():
    return os.path.join(SOURCE, "scenes", "python")


@pytest.fixture
def settee_bin():
    b = os.environ.get("SETTEE_BIN")
    if not b or not os.path.exists(b):
        pytest.skip("SETTEE_BIN is not set (ctest sets it)")
    return b
