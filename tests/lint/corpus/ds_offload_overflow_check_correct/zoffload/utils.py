"""Host-side helpers for the offloaded optimizer."""

import math


def has_inf_or_nan(x):
    """True if the (host) tensor holds an inf or a NaN; one reduction instead of two scans."""
    try:
        cpu_sum = float(x.float().sum())
    except RuntimeError as instance:
        # float() of a nan/inf sum raises on some builds instead of returning it
        if "value cannot be converted" not in instance.args[0]:
            raise
        return True
    return math.isinf(cpu_sum) or cpu_sum != cpu_sum


def partition_sizes(params):
    return [p.numel() for p in params]
