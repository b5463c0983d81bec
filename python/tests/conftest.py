import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "testdata"


@pytest.fixture(scope="session")
def cli():
    """Runs the fakeprop binary built beside the extension (ctest sets FAKEPROP_BIN)."""
    path = os.environ.get("FAKEPROP_BIN") or shutil.which("fakeprop")
    if not path:
        pytest.skip("no fakeprop binary: set FAKEPROP_BIN")

    def run(*args):
        return subprocess.run([path, *map(str, args)], capture_output=True, text=True)

    return run


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: big programs (test_models.py); deselect with -m 'not slow'")
