# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import List

# Third Party
from cuda.bindings import driver

# First Party
from kvbatch.attrs import d2h_copy_attributes
from kvbatch.cuda_utils import check_cuda_errors


class BatchBlockCopier:
    """Issues a list of equally attributed pointer copies as one batch."""

    def __init__(self, device_ordinal: int):
        self._attrs = [d2h_copy_attributes(device_ordinal)]
        self._attr_idxs = [0]

    def copy(
        self,
        dsts: List[int],
        srcs: List[int],
        sizes: List[int],
        stream: "driver.CUstream",
    ) -> None:
        if not dsts:
            return
        # expect: KVG002
        result = driver.cuMemcpyBatchAsync(
            dsts, srcs, sizes, len(dsts),
            self._attrs, self._attr_idxs, len(self._attrs),
            stream,
        )
        check_cuda_errors(result)
