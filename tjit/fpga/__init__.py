"""FPGA output: jitted programs as HLS C++ dataflow designs.

``design.py`` builds a design (stages, streams, buffers, HLS C++) from a planned
program; ``estimate.py`` estimates its resources and latency on an UltraScale+ card;
``export.py`` writes a Vitis project (``tjit.fpga.export``). The ``"hls"`` backend
(``tjit/devices/hls.py``) runs designs by C simulation; ``include/`` holds tjit's
simulation headers (``hls_stream.h``, ``hls_math.h``, ``tjit_dataflow.h``).

    import tjit.fpga
    tjit.fpga.export(f, x, out_dir="proj", part="u280", clock_mhz=300)
"""

from tjit.fpga.export import export

__all__ = ["export"]
