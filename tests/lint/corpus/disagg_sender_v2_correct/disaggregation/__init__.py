from .sender import BlockHeader, TcpBlockSender
from .transceiver import KvCacheTransceiver, TransferRequest
