import torch

from .policy import ModelShape, Policy


def init_cache_home(shape: ModelShape, policy: Policy) -> tuple[torch.Tensor, torch.Tensor]:
    s, bh, d = shape.cache_shape(policy.gpu_batch_size)
    k_home = torch.empty((s, bh, d), dtype=policy.cache_dtype, pin_memory=policy.pin_cache)
    v_home = torch.empty((s, bh, d), dtype=policy.cache_dtype, pin_memory=policy.pin_cache)
    return k_home, v_home


def store_cache(
    k_home: torch.Tensor, v_home: torch.Tensor, k_new: torch.Tensor, v_new: torch.Tensor, pos: int
) -> None:
    """Append the cache produced at ``pos`` (possibly a whole prompt) to its home on CPU."""
    n = k_new.shape[0]
    k_home[pos:pos + n].copy_(k_new, non_blocking=True)
    v_home[pos:pos + n].copy_(v_new, non_blocking=True)
    stream = torch.cuda.current_stream(k_new.device)
    k_new.record_stream(stream)
    v_new.record_stream(stream)


def load_cache(
    k_home: torch.Tensor, v_home: torch.Tensor, upto: int, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    k_buf = torch.empty((upto,) + tuple(k_home.shape[1:]), dtype=k_home.dtype, device=device)
    v_buf = torch.empty((upto,) + tuple(v_home.shape[1:]), dtype=v_home.dtype, device=device)
    k_buf.copy_(k_home[:upto], non_blocking=True)
    v_buf.copy_(v_home[:upto], non_blocking=True)
    return k_buf, v_buf
