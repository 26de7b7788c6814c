import functools
import logging

import torch

from .constants import HOST_COPY_STREAM_PRIORITY

logger = logging.getLogger(__name__)


@functools.lru_cache(maxsize=None)
def host_copy_stream(device_index: int) -> torch.cuda.Stream:
    """One low-latency stream per device, shared by every host copier."""
    stream = torch.cuda.Stream(device=device_index,
                               priority=HOST_COPY_STREAM_PRIORITY)
    logger.debug("created host copy stream %s on cuda:%d", stream,
                 device_index)
    return stream
