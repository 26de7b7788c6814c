"""Runs the ensemble forward day by day, folding in re-calibrated rates as they arrive."""

from typing import Iterable

import numpy as np

from sirens.calibration import Calibrator
from sirens.ensemble import Ensemble


def forecast(init_state: np.ndarray, case_feed: Iterable[np.ndarray], days: int,
             members: int = 64, steps_per_day: int = 24) -> list:
    cal = Calibrator(init_state.shape[0])
    ens = Ensemble(init_state, cal.table.copy(), members)
    cal.start(case_feed)
    weekly = []
    for day in range(days):
        for _ in range(steps_per_day):
            ens.step(1.0 / steps_per_day)
        rates = cal.poll()
        if rates is not None:
            ens.set_rates(rates)
        if day % 7 == 6:
            weekly.append(ens.infected_quantiles())
    return weekly
