# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass, field
from typing import Dict, List


@dataclass
class ReqMeta:
    local_block_ids: List[int]
    remote_engine_id: str = ""
    remote_block_ids: List[int] = field(default_factory=list)


@dataclass
class NixlConnectorMetadata:
    reqs_to_recv: Dict[str, ReqMeta] = field(default_factory=dict)
    reqs_to_save: Dict[str, ReqMeta] = field(default_factory=dict)

    def add_new_req(self, request_id: str, meta: ReqMeta, load_remote_cache: bool) -> None:
        if load_remote_cache:
            self.reqs_to_recv[request_id] = meta
        else:
            self.reqs_to_save[request_id] = meta
