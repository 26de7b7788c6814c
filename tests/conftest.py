"""Settings for the whole suite."""

from hypothesis import HealthCheck, settings

# No test may depend on how fast the machine is: CI machines are small and busy, and a first
# example can take a thousand times its replay (imports, caches). Examples are bounded by
# their count, not by a deadline, and slow data generation is no failure.
settings.register_profile("kvguard", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("kvguard")
