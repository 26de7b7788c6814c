"""A content-addressed host store for KV prefix blocks (in-memory here; disk or a remote
tier in deployment)."""

import hashlib
import threading
from typing import Dict, Iterable, Optional


def prefix_key(token_ids: Iterable[int], parent: Optional[str]) -> str:
    h = hashlib.blake2b(digest_size=16)
    if parent:
        h.update(parent.encode())
    h.update(bytes(str(list(token_ids)), "ascii"))
    return h.hexdigest()


class PrefixStore:
    def __init__(self):
        self._lock = threading.Lock()
        self._blobs: Dict[str, bytes] = {}

    def put(self, key: str, blob: bytes) -> None:
        with self._lock:
            self._blobs.setdefault(key, blob)

    def __contains__(self, key: str) -> bool:
        with self._lock:
            return key in self._blobs
