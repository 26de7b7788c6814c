import logging
import queue
import threading
from dataclasses import dataclass
from typing import Optional

import cupy
import numpy as np
import redis

from lmc_remote.constants import KV_DTYPE, REMOTE_PUT_QUEUE_MAXSIZE, REMOTE_PUT_THREAD_NAME
from lmc_remote.serde import NaiveSerializer

logger = logging.getLogger(__name__)


class RedisConnector:
    def __init__(self, url: str):
        self.client = redis.Redis.from_url(url)

    def exists(self, key: str) -> bool:
        return bool(self.client.exists(key))

    def put(self, key: str, payload: bytes) -> None:
        self.client.set(key, payload)

    def get(self, key: str) -> Optional[bytes]:
        return self.client.get(key)


@dataclass
class PutTask:
    key: str
    host_buf: np.ndarray
    done_event: cupy.cuda.Event


class RemoteBackend:
    def __init__(self, connector: RedisConnector, serde: NaiveSerializer):
        self.connector = connector
        self.serde = serde
        self.put_queue: "queue.Queue[Optional[PutTask]]" = queue.Queue(maxsize=REMOTE_PUT_QUEUE_MAXSIZE)
        self.put_thread = threading.Thread(target=self._put_loop, name=REMOTE_PUT_THREAD_NAME, daemon=True)
        self.put_thread.start()

    def contains(self, key: str) -> bool:
        return self.connector.exists(key)

    def submit_put_task(self, key: str, host_buf: np.ndarray, done_event: cupy.cuda.Event) -> None:
        self.put_queue.put(PutTask(key, host_buf, done_event))

    def _put_loop(self) -> None:
        while True:
            task = self.put_queue.get()
            if task is None:
                break
            try:
                task.done_event.synchronize()
                self.connector.put(task.key, self.serde.serialize(task.host_buf))
            except redis.RedisError:
                logger.exception("remote put failed for %s", task.key)
            finally:
                self.put_queue.task_done()

    def get(self, key: str) -> Optional[np.ndarray]:
        payload = self.connector.get(key)
        return None if payload is None else self.serde.deserialize(payload, KV_DTYPE)

    def close(self) -> None:
        self.put_queue.put(None)
        self.put_thread.join()
