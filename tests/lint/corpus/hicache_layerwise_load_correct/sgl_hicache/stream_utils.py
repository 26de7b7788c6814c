import logging

logger = logging.getLogger(__name__)


def order_after_compute(device_module, stream) -> None:
    stream.wait_stream(device_module.current_stream())


def merge_indices(ops):
    host_starts, device_indices = [], []
    for op in ops:
        host_starts.append((op.host_start, op.device_start, op.num_tokens))
        device_indices.append(op.node_id)
    return host_starts, device_indices
