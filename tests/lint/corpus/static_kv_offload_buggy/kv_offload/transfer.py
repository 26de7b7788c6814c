import torch


def write_back_layer(
    host_key: torch.Tensor,
    host_value: torch.Tensor,
    device_key: torch.Tensor,
    device_value: torch.Tensor,
) -> None:
    """Copies the device copy of one layer back into its pinned host home."""
    # expect: KVG001
    host_key.copy_(device_key, non_blocking=True)
    # expect: KVG001
    host_value.copy_(device_value, non_blocking=True)


def load_layer(
    device_key: torch.Tensor,
    device_value: torch.Tensor,
    host_key: torch.Tensor,
    host_value: torch.Tensor,
    prefetch_stream: torch.cuda.Stream,
) -> None:
    """Loads one layer from pinned host memory into a device slot on the prefetch stream."""
    prefetch_stream.wait_stream(torch.cuda.current_stream(device_key.device))
    with torch.cuda.stream(prefetch_stream):
        device_key.copy_(host_key, non_blocking=True)
        device_value.copy_(host_value, non_blocking=True)
