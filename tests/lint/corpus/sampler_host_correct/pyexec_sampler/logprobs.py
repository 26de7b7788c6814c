import logging

import torch

from .constants import BEAM

logger = logging.getLogger(__name__)


def append_log_probs(requests, host_log_probs: torch.Tensor) -> None:
    """Attach the sampled token's log-probability to every request."""
    values = host_log_probs.tolist()
    for req in requests:
        slot = req.py_seq_slot
        if slot is None:
            logger.debug("request %s has no sequence slot", req.request_id)
            continue
        req.py_result.append_log_probs([[values[slot][BEAM]]])
