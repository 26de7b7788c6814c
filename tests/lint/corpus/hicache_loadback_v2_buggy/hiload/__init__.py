from hiload.cache_controller import HiCacheController, LoadOperation
from hiload.layer_counter import LayerDoneCounter
from hiload.scheduler import Scheduler
