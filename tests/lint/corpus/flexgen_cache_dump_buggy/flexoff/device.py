from __future__ import annotations

import dataclasses
import logging
import zlib
from concurrent.futures import Future, ThreadPoolExecutor

import torch

logger = logging.getLogger(__name__)

ACC = torch.get_device_module()


@dataclasses.dataclass
class StreamBundle:
    compute: object
    load_weight: object
    store_cache: object

    @classmethod
    def create(cls) -> "StreamBundle":
        return cls(compute=ACC.current_stream(), load_weight=ACC.Stream(), store_cache=ACC.Stream())


@dataclasses.dataclass
class HostKV:
    k: torch.Tensor
    v: torch.Tensor
    crc: int = 0


class TorchDisk:
    """Writes pinned host buffers to files on a small thread pool."""

    def __init__(self, path: str, num_workers: int, verify: bool = False) -> None:
        self.path = path
        self.verify = verify
        self._pool = ThreadPoolExecutor(max_workers=num_workers, thread_name_prefix="flexgen-disk")

    def dump(self, filename: str, host: HostKV, done) -> Future:
        return self._pool.submit(self._write, f"{self.path}/{filename}", host, done)

    def _write(self, filename: str, host: HostKV, done) -> str:
        if self.verify:
            done.synchronize()
            host.crc = zlib.crc32(host.k.numpy().tobytes()) ^ zlib.crc32(host.v.numpy().tobytes())
        # expect: KVG003
        torch.save({"k": host.k, "v": host.v, "crc": host.crc}, filename)
        logger.debug("wrote %s", filename)
        return filename

    def close(self) -> None:
        self._pool.shutdown(wait=True)
