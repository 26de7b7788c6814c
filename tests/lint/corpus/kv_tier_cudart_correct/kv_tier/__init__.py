from kv_tier.worker import HostTierWorker

__all__ = ["HostTierWorker"]
