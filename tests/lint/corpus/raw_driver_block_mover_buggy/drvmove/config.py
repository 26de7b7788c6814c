"""Configuration of the driver-API block mover."""
import json
import os
from typing import Any, Dict, Optional

from cuda.bindings import driver as cu

_ORDER = cu.CUmemcpySrcAccessOrder

DEFAULTS: Dict[str, Any] = {
    "block_bytes": 2 << 20,
    "num_device_blocks": 512,
    "num_host_blocks": 2048,
    # Below this many blocks, issue one cuMemcpy*Async per block instead of a batch.
    "batch_threshold": 4,
    # Loads read pinned host blocks whose store has completed (blocks are only
    # handed out for loading after wait_stores()), so nothing writes the source
    # any more and the driver may start reading it as early as it likes.
    "load_src_access_order": _ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_ANY,
    "store_src_access_order": _ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_ANY,
}

_ENV = "DRVMOVE_CONFIG"


def load_config(overrides: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """DEFAULTS, then the JSON file named by $DRVMOVE_CONFIG, then overrides."""
    cfg = dict(DEFAULTS)
    path = os.environ.get(_ENV)
    if path:
        with open(path) as f:
            user = json.load(f)
        for key in ("block_bytes", "num_device_blocks", "num_host_blocks", "batch_threshold"):
            if key in user:
                cfg[key] = int(user[key])
    if overrides:
        cfg.update(overrides)
    if cfg["block_bytes"] <= 0 or cfg["block_bytes"] % 256:
        raise ValueError("block_bytes must be a positive multiple of 256")
    return cfg
