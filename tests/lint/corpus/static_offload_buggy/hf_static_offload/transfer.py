import torch


def write_back_slot(host_kv: torch.Tensor, slot_kv: torch.Tensor) -> None:
    """Persist a resident slot to the host copy of the layer that owned it."""
    # expect: KVG001
    host_kv.copy_(slot_kv, non_blocking=True)


def load_layer_into_slot(slot_kv: torch.Tensor, host_kv: torch.Tensor) -> None:
    """Bring one offloaded layer into a resident device slot."""
    # expect: KVG004
    slot_kv.copy_(host_kv, non_blocking=True)
