# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from urllib.parse import urlparse


@dataclass
class RemoteBackendConfig:
    remote_url: str = "lm://localhost:65432"
    remote_serde: str = "cachegen_lite"
    quant_bits: int = 8
    num_put_workers: int = 2
    pipelined_put: bool = True
    put_timeout_s: float = 10.0

    @property
    def host_port(self) -> tuple:
        parsed = urlparse(self.remote_url)
        if parsed.scheme != "lm":
            raise ValueError(f"Unsupported remote url {self.remote_url}")
        return parsed.hostname, parsed.port
