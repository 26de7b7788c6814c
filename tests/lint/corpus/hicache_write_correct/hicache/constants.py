VALID_WRITE_POLICIES = ("write_through", "write_through_selective", "write_back")
DEFAULT_WRITE_POLICY = "write_through"

VALID_LAYOUTS = ("layer_first", "page_first")
DEFAULT_HOST_TO_DEVICE_RATIO = 2.0

BACKUP_QUEUE_TIMEOUT_S = 1.0
STORAGE_KEY_SEP = ":"
