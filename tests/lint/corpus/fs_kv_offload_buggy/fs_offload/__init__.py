from fs_offload.config import FsOffloadConfig
from fs_offload.worker import FsOffloadingWorker
