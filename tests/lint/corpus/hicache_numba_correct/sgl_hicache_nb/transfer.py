from typing import Sequence


def load_pages_to_device(host_buf, dev_layer, layer_id: int, host_starts: Sequence[int],
                         dev_starts: Sequence[int], page_size: int, stream) -> None:
    for h, d in zip(host_starts, dev_starts):
        dev_layer[d : d + page_size].copy_to_device(host_buf[layer_id, h : h + page_size], stream=stream)


def backup_pages_to_host(dev_layer, host_buf, layer_id: int, dev_starts: Sequence[int],
                         host_starts: Sequence[int], page_size: int, stream) -> None:
    for d, h in zip(dev_starts, host_starts):
        dev_layer[d : d + page_size].copy_to_host(host_buf[layer_id, h : h + page_size], stream=stream)
