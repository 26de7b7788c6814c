"""Settings for the whole suite."""

import pytest
from hypothesis import HealthCheck, settings

# No test may depend on how fast the machine is: CI machines are small and busy, and a first
# example can take a thousand times its replay (imports, caches). Examples are bounded by
# their count, not by a deadline, and slow data generation is no failure.
settings.register_profile("kvguard", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("kvguard")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked slow (a whole real code base checked, a real vLLM release's suite) first,
    the longest first. With ``--maxschedchunk=1`` (pyproject.toml) xdist hands each worker the
    next test as it finishes one, so the long ones spread over every worker; by default it
    sends each worker a block of consecutive tests, and the first block held them all."""

    def minutes(item: pytest.Item) -> float:
        slow = item.get_closest_marker("slow")
        return float(slow.args[0]) if slow is not None and slow.args else 0.0

    items.sort(key=minutes, reverse=True)
