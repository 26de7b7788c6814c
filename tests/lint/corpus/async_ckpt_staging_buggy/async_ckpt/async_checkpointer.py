"""Trainer-facing entry point: stage on the caller's thread, persist in the background."""
import os
import shutil
from concurrent.futures import Future
from typing import Any, Dict, List, Optional

from .staging import PinnedMemoryStager
from .storage_writer import BackgroundCheckpointWriter


class AsyncCheckpointer:

    def __init__(self, checkpoint_dir: str, keep_last: int = 3, cache_staged_state_dict: bool = True):
        self.checkpoint_dir = checkpoint_dir
        self.keep_last = keep_last
        self._stager = PinnedMemoryStager(cache_staged_state_dict=cache_staged_state_dict)
        self._writer = BackgroundCheckpointWriter()
        self._writer.start()
        self._pending: Optional[Future] = None
        self._saved: List[str] = []

    def _path_for(self, step: int) -> str:
        return os.path.join(self.checkpoint_dir, f"step_{step:08d}", "state.pt")

    def save(self, state_dict: Dict[str, Any], step: int) -> Future:
        # pinned staging buffers are reused, so the previous write has to finish first
        self.wait()
        staged = self._stager.stage(state_dict, step)
        self._pending = self._writer.submit(staged, self._path_for(step))
        return self._pending

    def wait(self) -> None:
        if self._pending is None:
            return
        path = self._pending.result()
        self._pending = None
        self._saved.append(path)
        while len(self._saved) > self.keep_last:
            shutil.rmtree(os.path.dirname(self._saved.pop(0)), ignore_errors=True)

    def close(self) -> None:
        self.wait()
        self._writer.close()
