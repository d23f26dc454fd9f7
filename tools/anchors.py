"""Published 3D FFT times the studies compare the simulated machines with (issue 12's anchors).

Each anchor is a measurement on a real machine, with the paper it comes from; the anchor studies
(scenarios/studies/anchor-*.yaml) state how each is mapped onto this simulator. These are inputs
(the figures being matched), never simulated results. `scaled_from` marks an anchor whose size
the simulator cannot take as published, scaled as its study says.
"""

ANCHORS = [
    {"name": "Anton 32^3", "N": 32, "nodes": 512, "seconds": 3.7e-6,
     "source": 'Young et al., "A 32x32x32, spatially distributed 3D FFT in four microseconds on Anton"'},
    {"name": "Anton 64^3", "N": 64, "nodes": 512, "seconds": 13.3e-6,
     "source": 'Young et al., "A 32x32x32, spatially distributed 3D FFT in four microseconds on Anton"'},
    {"name": "wafer 512^3", "N": 512, "nodes": 512 * 512, "seconds": 959e-6,
     "source": 'Orenes-Vera et al., "Wafer-Scale Fast Fourier Transforms"'},
    {"name": "TPU pod 8192^3 (scaled to 4096^3)", "N": 4096, "nodes": 2048, "seconds": 12.66 / 16,
     "scaled_from": "8192^3 in 12.66 s, times (4096/8192)^4 for the dense work 3 N^4",
     "source": 'Lu et al., "Large-scale discrete Fourier transform on TPUs"'},
]


def at_size(n):
    """The anchors of tensor size N (an int or the text of one); a tensor given as AxBxC matches
    only when every side is N."""
    text = str(n)
    sides = {int(s) for s in text.split("x")} if text.replace("x", "").isdigit() else set()
    return [a for a in ANCHORS if sides == {a["N"]}]


def by_name(name):
    """The anchor called `name` (case-insensitive), or None."""
    return next((a for a in ANCHORS if a["name"].lower() == name.lower()), None)
