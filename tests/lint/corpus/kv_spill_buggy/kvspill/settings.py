import dataclasses
import os

import numpy as np

DEFAULT_SPILL_DIR = os.path.join(os.path.expanduser("~"), "flexgen_offload_dir")
RECORD_SUFFIX = ".kv"


@dataclasses.dataclass(frozen=True)
class SpillSettings:
    spill_dir: str = DEFAULT_SPILL_DIR
    num_copy_threads: int = 4
    queue_depth: int = 16
    staging_elems: int = 1 << 26
    dtype: type = np.float16
    cuda_id: int = 0

    def record_path(self, layer_idx: int, step: int) -> str:
        return os.path.join(self.spill_dir, f"layer{layer_idx:03d}_step{step:06d}{RECORD_SUFFIX}")
