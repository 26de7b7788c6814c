"""Offload knobs, read from the environment once at import."""

import os


def get_int_env_var(name, default):
    value = os.environ.get(name)
    return default if value is None or value == "" else int(value)


OFFLOAD_GROUP_SIZE = get_int_env_var("SGLANG_OFFLOAD_GROUP_SIZE", -1)
OFFLOAD_NUM_IN_GROUP = get_int_env_var("SGLANG_OFFLOAD_NUM_OFFLOAD_IN_GROUP", 1)
OFFLOAD_PREFETCH_STEP = get_int_env_var("SGLANG_OFFLOAD_PREFETCH_STEP", 1)
