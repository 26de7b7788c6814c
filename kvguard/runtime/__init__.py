"""kvguard.runtime: the ordered KV copy path, its guard and sampled verification.

Needs torch and cuda-bindings (`pip install kvguard[runtime]`); never imports vLLM.
"""

from kvguard.runtime.backend import OrderedCopyBackend
from kvguard.runtime.batch_copy import BatchCopier, CacheLayout, plan_block_copies
from kvguard.runtime.driver import BatchMemcpyAbi, resolve_batch_memcpy
from kvguard.runtime.errors import (
    BatchCopyError,
    CudaDriverError,
    GuardViolation,
    KvguardRuntimeError,
    UnsafeSourceOrderError,
)
from kvguard.runtime.evidence import StreamEventLog
from kvguard.runtime.guard import CopyGuard, CopyRequest, GuardPolicy, Verdict, ViolationKind
from kvguard.runtime.intake import GroupLimits
from kvguard.runtime.order import MemoryKind, SourceOrder, check_source_order
from kvguard.runtime.refusals import RefusalReason, RefusedCopy
from kvguard.runtime.verify import BlockSampler

__all__ = [
    "BatchCopier",
    "BatchCopyError",
    "BatchMemcpyAbi",
    "BlockSampler",
    "CacheLayout",
    "CopyGuard",
    "CopyRequest",
    "CudaDriverError",
    "GroupLimits",
    "GuardPolicy",
    "GuardViolation",
    "KvguardRuntimeError",
    "MemoryKind",
    "OrderedCopyBackend",
    "RefusalReason",
    "RefusedCopy",
    "SourceOrder",
    "StreamEventLog",
    "UnsafeSourceOrderError",
    "Verdict",
    "ViolationKind",
    "check_source_order",
    "plan_block_copies",
    "resolve_batch_memcpy",
]
