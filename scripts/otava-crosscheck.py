"""
Change points of the series in a JSON file by Apache Otava (compute_change_points: E-Divisive
candidates in sliding windows, then Student's t merge) and by MongoDB's E-Divisive
(signal_processing_algorithms.energy_statistics.e_divisive, permutation test), for
scripts/otava-crosscheck.ts. Not run by CI.

    python3 -m venv /tmp/otava && /tmp/otava/bin/pip install signal-processing-algorithms
    /tmp/otava/bin/pip install --no-deps apache-otava   # its gevent pin does not build on Python 3.11
    /tmp/otava/bin/python scripts/otava-crosscheck.py series.json > changes.json

Input: {"series": [[v0, v1, ...], ...], "otavaPValues": [0.001, ...], "eDivisivePValue": 0.05}
Output: {"otava": {"<p>": [[index, ...] per series]}, "eDivisive": [[index, ...] per series]}
"""
import json
import sys

import numpy as np
from otava.analysis import compute_change_points
from signal_processing_algorithms.energy_statistics.energy_statistics import e_divisive


def main() -> None:
    doc = json.load(open(sys.argv[1]))
    out = {"otava": {}, "eDivisive": []}
    for p in doc["otavaPValues"]:
        found = []
        for s in doc["series"]:
            cps, _ = compute_change_points(list(s), window_len=50, max_pvalue=p)
            found.append(sorted(int(cp.index) for cp in cps))
        out["otava"][str(p)] = found
    np.random.seed(1)
    for s in doc["series"]:
        out["eDivisive"].append(sorted(int(i) for i in e_divisive(np.array(s, dtype=float), pvalue=doc["eDivisivePValue"], permutations=100)))
    json.dump(out, sys.stdout)


main()
