from __future__ import annotations

import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

logger = logging.getLogger(__name__)


class MooncakeTransferEngine:
    def __init__(self, hostname: str, ib_device: str | None = None) -> None:
        from mooncake.engine import TransferEngine

        self.engine = TransferEngine()
        ret = self.engine.initialize(hostname, "P2PHANDSHAKE", "rdma", ib_device or "")
        if ret != 0:
            raise RuntimeError("Mooncake TransferEngine initialization failed")
        self.session_id = f"{hostname}:{self.engine.get_rpc_port()}"
        self._executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="mooncake-xfer")

    def register(self, ptr: int, length: int) -> None:
        if self.engine.register_memory(ptr, length) != 0:
            logger.warning("Mooncake memory registration of %#x failed", ptr)

    def transfer_async(self, session_id: str, src_ptr: int, dst_ptr: int, length: int,
                       callback: Callable[[bool], None]) -> None:
        fut: Future[int] = self._executor.submit(
            self.engine.transfer_sync_write, session_id, src_ptr, dst_ptr, length)

        def _done(f: Future[int]) -> None:
            ok = f.exception() is None and f.result() == 0
            if not ok:
                logger.error("transfer to %s failed: %r", session_id, f.exception())
            callback(ok)

        fut.add_done_callback(_done)
