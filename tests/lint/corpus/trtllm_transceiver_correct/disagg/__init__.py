from disagg.buffer_manager import CacheTransBufferManager
from disagg.sender import DataSender, SocketComm, TransferRequest
from disagg.transceiver import CacheTransceiver
