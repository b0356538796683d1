"""The processes a pytester run starts leave the [dev] extra's unused pytest plugins unloaded."""

from __future__ import annotations

import pytest
from pytester_output import UNUSED_DEV_PLUGINS


def test_a_subprocess_run_blocks_the_unused_dev_plugins(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(f"""
        import sys

        def test_blocked(pytestconfig):
            for name in {UNUSED_DEV_PLUGINS!r}:
                assert pytestconfig.pluginmanager.is_blocked(name), name
            assert "_hypothesis_pytestplugin" not in sys.modules
            assert "schemathesis" not in sys.modules
    """)
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
