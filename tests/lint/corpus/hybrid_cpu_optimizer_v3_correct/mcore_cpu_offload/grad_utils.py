import logging
import math
from typing import Iterable, Tuple

import torch

logger = logging.getLogger(__name__)


def host_grad_norm(grads: Iterable[torch.Tensor], norm_type: float = 2.0) -> Tuple[float, bool]:
    """L2 norm of host gradients and whether every entry is finite."""
    total = 0.0
    for grad in grads:
        grad_norm = float(torch.linalg.vector_norm(grad.float(), norm_type))
        if not math.isfinite(grad_norm):
            return float("nan"), False
        total += grad_norm ** norm_type
    return total ** (1.0 / norm_type), True


def report_grad_norm(step: int, norm: float) -> None:
    logger.info("step %d | host grad norm %.4e", step, norm)
