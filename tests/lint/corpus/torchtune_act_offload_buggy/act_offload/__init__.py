from ._offloading import NoOpManager, OffloadActivations, get_act_offloading_ctx_manager

__all__ = ["NoOpManager", "OffloadActivations", "get_act_offloading_ctx_manager"]
