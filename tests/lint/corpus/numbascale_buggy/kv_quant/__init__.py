from kv_quant.calibrator import CalibratorConfig, ScaleCalibrator
from kv_quant.consumer import ScaleWriter

__all__ = ["CalibratorConfig", "ScaleCalibrator", "ScaleWriter"]
