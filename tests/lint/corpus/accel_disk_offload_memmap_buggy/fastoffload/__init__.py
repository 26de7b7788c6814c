from fastoffload.big_modeling import disk_offload

__all__ = ["disk_offload"]
