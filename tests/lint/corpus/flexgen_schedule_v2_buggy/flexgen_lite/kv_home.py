from typing import Tuple

import torch


def init_cache_home(max_seq_len: int, batch_size: int, hidden_size: int, dtype: torch.dtype,
                    pin_memory: bool = True) -> Tuple[torch.Tensor, torch.Tensor]:
    """Allocates the host-resident key/value home of one layer, laid out as (seq, batch, hidden)."""
    shape = (max_seq_len, batch_size, hidden_size)
    k_home = torch.empty(shape, dtype=dtype, pin_memory=pin_memory)
    v_home = torch.empty(shape, dtype=dtype, pin_memory=pin_memory)
    return k_home, v_home


def load_prefix(k_home: torch.Tensor, v_home: torch.Tensor, length: int, device: torch.device):
    k_buf = k_home[:length].to(device, non_blocking=True)
    v_buf = v_home[:length].to(device, non_blocking=True)
    return k_buf, v_buf


def store_new_tokens(k_home: torch.Tensor, v_home: torch.Tensor, k_new: torch.Tensor,
                     v_new: torch.Tensor, start: int) -> None:
    end = start + k_new.shape[0]
    # expect: KVG001
    k_home[start:end].copy_(k_new, non_blocking=True)
    # expect: KVG001
    v_home[start:end].copy_(v_new, non_blocking=True)
    stream = torch.cuda.current_stream()
    k_new.record_stream(stream)
    v_new.record_stream(stream)
