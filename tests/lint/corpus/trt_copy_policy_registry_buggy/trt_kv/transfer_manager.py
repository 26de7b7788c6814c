"""Batch copies between the pools on a transfer stream of the manager's own."""

from typing import List, NamedTuple, Optional

import torch
from cuda.bindings import driver

from trt_kv.copy_policy import COPY_POLICIES
from trt_kv.cuda_utils import check


class BlockCopy(NamedTuple):
    dst: int
    src: int
    nbytes: int


class KVCacheTransferManager:

    def __init__(self, device_id: int):
        self.device_id = device_id
        self.policies = {name: cls(device_id) for name, cls in COPY_POLICIES.items()}
        self._stream: Optional[driver.CUstream] = None
        flags = driver.CUevent_flags.CU_EVENT_DISABLE_TIMING
        self._engine_ready = check(driver.cuEventCreate(flags))
        self._transfer_done = check(driver.cuEventCreate(flags))

    @property
    def stream(self) -> driver.CUstream:
        if self._stream is None:
            self._stream = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
        return self._stream

    def _run(self, direction: str, copies: List[BlockCopy]) -> None:
        if not copies:
            return
        engine = driver.CUstream(torch.cuda.current_stream().cuda_stream)
        # behind everything the engine has queued so far
        check(driver.cuEventRecord(self._engine_ready, engine))
        check(driver.cuStreamWaitEvent(self.stream, self._engine_ready, 0))
        attrs = self.policies[direction].attributes()
        # expect: KVG002
        check(driver.cuMemcpyBatchAsync([c.dst for c in copies], [c.src for c in copies],
                                        [c.nbytes for c in copies], len(copies), [attrs], [0], 1,
                                        self.stream))
        check(driver.cuEventRecord(self._transfer_done, self.stream))
        # the engine's next forward reads onboarded blocks and overwrites offloaded ones
        check(driver.cuStreamWaitEvent(engine, self._transfer_done, 0))

    def offload(self, copies: List[BlockCopy]) -> None:
        self._run("offload", copies)

    def onboard(self, copies: List[BlockCopy]) -> None:
        self._run("onboard", copies)
