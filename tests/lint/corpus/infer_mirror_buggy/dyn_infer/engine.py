# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Optional

import torch
from cuda.bindings import driver

from .context import DynamicInferenceContext
from .cuda_utils import as_cu_stream, check, create_copy_stream, create_marker_event
from .host_mirror import HostMetadataMirror

logger = logging.getLogger(__name__)


class DynamicInferenceEngine:
    """Runs one decode step per call and hands the sampled tokens to a detokenizer thread."""

    def __init__(
        self,
        model_fn: Callable[[DynamicInferenceContext], torch.Tensor],
        context: DynamicInferenceContext,
        eos_id: int,
        device_ordinal: int = 0,
    ) -> None:
        self.model_fn = model_fn
        self.context = context
        self.eos_id = eos_id
        self.mirror = HostMetadataMirror(context.max_requests, device_ordinal)
        self._copy_stream = create_copy_stream()
        self._sampled = create_marker_event()
        self._snapshot_done = create_marker_event()
        self._post = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcore-detok")
        self._pending: Optional[Future] = None
        self.step_count = 0
        self.generated: dict[int, list[int]] = {}

    @torch.inference_mode()
    def step(self) -> Future:
        if self._pending is not None:
            self._pending.result()
        ctx = self.context
        active = ctx.active_count
        logits = self.model_fn(ctx)
        torch.argmax(logits[:active], dim=-1, out=ctx.next_tokens[:active])
        ctx.request_lengths[:active] += 1
        torch.eq(ctx.next_tokens[:active], self.eos_id, out=ctx.finished[:active])

        compute = as_cu_stream(torch.cuda.current_stream())
        check(driver.cuEventRecord(self._sampled, compute))
        check(driver.cuStreamWaitEvent(self._copy_stream, self._sampled, 0))
        self.mirror.snapshot(ctx, active, self._copy_stream)
        check(driver.cuEventRecord(self._snapshot_done, self._copy_stream))
        check(driver.cuStreamWaitEvent(compute, self._snapshot_done, 0))

        self.step_count += 1
        self._pending = self._post.submit(self._emit, self.step_count, list(ctx.request_ids[:active]))
        return self._pending

    def _emit(self, step_id: int, request_ids: list[int]) -> list[int]:
        check(driver.cuEventSynchronize(self._sampled))
        active = len(request_ids)
        # expect: KVG003
        tokens = self.mirror.next_tokens[:active].tolist()
        # expect: KVG003
        finished = self.mirror.finished[:active].tolist()
        done = []
        for rid, tok, fin in zip(request_ids, tokens, finished):
            self.generated.setdefault(rid, []).append(tok)
            if fin:
                done.append(rid)
        logger.debug("step %d: %d active, %d finished", step_id, active, len(done))
        return done

    def shutdown(self) -> None:
        if self._pending is not None:
            self._pending.result()
        self._post.shutdown(wait=True)
        check(driver.cuStreamDestroy(self._copy_stream))
