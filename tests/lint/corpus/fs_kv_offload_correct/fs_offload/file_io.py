import logging
import os
from typing import Sequence

import cupy
import numpy as np

logger = logging.getLogger(__name__)


def write_block_files(
    paths: Sequence[str], host_blocks: np.ndarray, copy_done: cupy.cuda.Event
) -> int:
    copy_done.synchronize()
    written = 0
    for j, path in enumerate(paths):
        if os.path.exists(path):
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp_path = f"{path}.{os.getpid()}.tmp"
        with open(tmp_path, "wb") as f:
            f.write(host_blocks[:, j].tobytes())
        os.replace(tmp_path, path)
        written += 1
    logger.debug("Wrote %d/%d KV block files", written, len(paths))
    return written
