"""Engine configuration and the remote backend's tunables."""

from dataclasses import dataclass

REMOTE_PUT_TIMEOUT_S = 30.0
# how long a put coroutine yields the loop between polls of its chunk's store event
STORE_POLL_INTERVAL_S = 0.0005


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    remote_url: str = "lm://127.0.0.1:65432"
    local_cpu_buffer_bytes: int = 2 << 30
    save_unfull_chunk: bool = False

    @property
    def remote_host_port(self):
        host, port = self.remote_url[len("lm://") :].rsplit(":", 1)
        return host, int(port)
