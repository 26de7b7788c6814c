import struct
from typing import BinaryIO

import numpy as np

from .constants import RECORD_MAGIC


def write_record(fh: BinaryIO, batch_id: int, host: np.ndarray) -> int:
    header = RECORD_MAGIC + struct.pack("<qii", batch_id, *host.shape)
    fh.write(header)
    # expect: KVG003
    payload = host.tobytes()
    fh.write(payload)
    return len(header) + len(payload)
