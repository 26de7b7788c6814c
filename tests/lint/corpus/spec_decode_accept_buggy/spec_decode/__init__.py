from .outputs import SpecDecodeOutput
from .scheduler import Request, SpecDecodeScheduler
from .worker import DraftModelProposer, SpecBatch, SpecDecodeWorker
