# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Dict, Optional
import logging
import threading

logger = logging.getLogger(__name__)


class HostKVStore:
    """In-memory store of serialized KV payloads keyed by request id."""

    def __init__(self, capacity_bytes: int):
        self.capacity_bytes = capacity_bytes
        self.used_bytes = 0
        self._entries: Dict[str, bytes] = {}
        self._lock = threading.Lock()

    def put(self, request_id: str, payload: bytes) -> None:
        with self._lock:
            old = self._entries.pop(request_id, None)
            if old is not None:
                self.used_bytes -= len(old)
            if self.used_bytes + len(payload) > self.capacity_bytes:
                logger.warning("HostKVStore full, dropping %s", request_id)
                return
            self._entries[request_id] = payload
            self.used_bytes += len(payload)

    def get(self, request_id: str) -> Optional[bytes]:
        with self._lock:
            return self._entries.get(request_id)
