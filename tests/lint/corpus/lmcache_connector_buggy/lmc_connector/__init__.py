from lmc_connector.connector import LMCacheConnectorV1, LMCacheConnectorMetadata

__all__ = ["LMCacheConnectorV1", "LMCacheConnectorMetadata"]
