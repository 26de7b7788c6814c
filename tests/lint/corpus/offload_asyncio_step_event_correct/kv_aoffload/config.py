from dataclasses import dataclass

from cuda.bindings import driver as drv

_Order = drv.CUmemcpySrcAccessOrder
# GPU -> CPU reads the live KV cache, which the compute stream keeps writing: the reads must
# stay behind the stream's wait on the compute-done event
STORE_SRC_ACCESS_ORDER = _Order.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
# CPU -> GPU reads pinned host blocks that no stream writes: the driver may read them early
LOAD_SRC_ACCESS_ORDER = _Order.CU_MEMCPY_SRC_ACCESS_ORDER_ANY


@dataclass(frozen=True)
class TransferConfig:
    num_cpu_blocks: int
    store_src_access_order: drv.CUmemcpySrcAccessOrder
    load_src_access_order: drv.CUmemcpySrcAccessOrder
    prefer_overlap: bool = True

    @classmethod
    def from_vllm_config(cls, vllm_config) -> "TransferConfig":
        extra = vllm_config.kv_transfer_config.kv_connector_extra_config
        return cls(
            num_cpu_blocks=int(extra.get("num_cpu_blocks", 4096)),
            store_src_access_order=STORE_SRC_ACCESS_ORDER,
            load_src_access_order=extra.get("load_src_access_order", LOAD_SRC_ACCESS_ORDER),
            prefer_overlap=bool(extra.get("prefer_overlap", True)),
        )
