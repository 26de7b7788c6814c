"""Raw device mappings: a tensor over an address the driver mapped (cuMemCreate/cuMemMap),
the way transport pools wrap memory they share with other processes."""

import torch


def tensor_at(address: int, nbytes: int, device_index: int) -> torch.Tensor:
    """A non-owning tensor over ``nbytes`` at ``address``; the caller keeps the pages mapped."""
    device = torch.device("cuda", device_index)
    storage = torch._C._construct_storage_from_data_pointer(address, device, nbytes)
    return torch.empty(0, dtype=torch.uint8, device=device).set_(storage, 0, (nbytes,))
