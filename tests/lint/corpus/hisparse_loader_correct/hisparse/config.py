from dataclasses import dataclass

import numpy as np


@dataclass
class HiSparseConfig:
    # number of elements in one KV page (page_size * head_num * head_dim)
    page_elems: int = 64 * 8 * 128
    # device staging slots, i.e. top-k pages attended per step
    max_selected_pages: int = 256
    num_host_pages: int = 65536
    head_dim: int = 128
    dtype: type = np.float32
    storage_key_prefix: str = "hisparse"
    threads_per_block: int = 128
