from .communicator import HostAllreduceCommunicator, CommConfig

__all__ = ["HostAllreduceCommunicator", "CommConfig"]
