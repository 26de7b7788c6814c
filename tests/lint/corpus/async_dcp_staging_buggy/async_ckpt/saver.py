from __future__ import annotations

import logging
import os
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Dict, Optional

import torch
from cuda.bindings import driver

from ._cuda import check
from .staging import PinnedStager, StagedCheckpoint

logger = logging.getLogger(__name__)


class AsyncCheckpointSaver:
    """Stages a state dict into pinned memory and serialises it on a worker thread.

    Training can continue as soon as :meth:`async_save` returns.
    """

    def __init__(self, root: str | os.PathLike, keep_last: int = 3):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.keep_last = keep_last
        self._stager = PinnedStager()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ckpt-writer")
        self._pending: Optional[Future] = None

    def async_save(self, state_dict: Dict[str, torch.Tensor], step: int) -> Future:
        # Staging buffers are reused: the previous write must be finished.
        self.wait()
        staged = self._stager.stage(state_dict, step)
        path = self.root / f"step_{step:08d}.pt"
        self._pending = self._executor.submit(self._write, path, staged)
        return self._pending

    def _write(self, path: Path, staged: StagedCheckpoint) -> Path:
        tmp = path.with_suffix(".pt.tmp")
        # expect: KVG003
        torch.save({"step": staged.step, "state_dict": staged.buffers}, tmp)
        os.replace(tmp, path)
        check(driver.cuEventDestroy(staged.done_event))
        self._prune()
        logger.info("checkpoint for step %d written to %s", staged.step, path)
        return path

    def _prune(self) -> None:
        ckpts = sorted(self.root.glob("step_*.pt"))
        for old in ckpts[: -self.keep_last]:
            old.unlink(missing_ok=True)

    def wait(self) -> None:
        if self._pending is not None:
            self._pending.result()
            self._pending = None

    def close(self) -> None:
        self.wait()
        self._executor.shutdown()
