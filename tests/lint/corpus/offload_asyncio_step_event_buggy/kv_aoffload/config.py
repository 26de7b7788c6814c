from dataclasses import dataclass

from cuda.bindings import driver as drv

_Order = drv.CUmemcpySrcAccessOrder
# the blocks a job names stay put while the batch is submitted, so the driver is free to
# read them right away
DEFAULT_SRC_ACCESS_ORDER = _Order.CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL


@dataclass(frozen=True)
class TransferConfig:
    num_cpu_blocks: int
    src_access_order: drv.CUmemcpySrcAccessOrder
    prefer_overlap: bool = True

    @classmethod
    def from_vllm_config(cls, vllm_config) -> "TransferConfig":
        extra = vllm_config.kv_transfer_config.kv_connector_extra_config
        return cls(
            num_cpu_blocks=int(extra.get("num_cpu_blocks", 4096)),
            src_access_order=extra.get("src_access_order", DEFAULT_SRC_ACCESS_ORDER),
            prefer_overlap=bool(extra.get("prefer_overlap", True)),
        )
