METRIC_NAMES = ("loss", "grad_norm", "lr", "tokens")
NUM_METRICS = len(METRIC_NAMES)
DEFAULT_LOG_INTERVAL = 10
