"""``tjit.fpga.export``: a jitted function as a self-contained Vitis project.

The project (``out_dir``)::

    src/kernel.cpp          the dataflow design (HLS C++; top function ``<name>``)
    src/tjit_dataflow.h     its stage macros (plain calls under __SYNTHESIS__)
    csim/testbench.cpp      C simulation: runs the design on the example inputs and
                            checks the outputs against the values tjit computed
    csim/include/           tjit's simulation headers (hls::stream FIFOs, threads)
    host/host.cpp           XRT native-API host: loads the .xclbin, runs the design on
                            the example inputs, checks the outputs the same way
    data/                   the example inputs and tjit's outputs (raw little-endian)
    connectivity.cfg        one memory bank per port (HBM on a U280, DDR on a U250)
    Makefile                csim (g++), csynth / hw_emu / hw (v++), host (g++ + XRT)
    README.md               what each target needs and does

Only programs that are one design can be exported: a program with host steps
(control flow, library calls) raises a ValueError naming them.
"""

import pathlib
import shutil

import numpy as np

from tjit.fpga.op_costs import PARTS
from tjit.lower.c.hls_dialect import CSIM_OPTIONS
from tjit.xla_like.compile import compile_program
from tjit.xla_like.plan import KernelStep
from tjit.xla_like.target import HLS

__all__ = ["export"]

_INCLUDE = pathlib.Path(__file__).resolve().parent / "include"
_CTYPES = {"float32": "float", "float64": "double", "int8": "int8_t", "int16": "int16_t",
           "int32": "int32_t", "int64": "int64_t", "uint8": "uint8_t",
           "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
           "bool": "uint8_t"}
#: |got - want| <= ATOL + RTOL * |want| for floats (sums are reassociated on the FPGA:
#: interleaved partials); integers and bools must match exactly.
_TOL = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-12)}


def export(f, *example_args, out_dir, part="u280", clock_mhz=300, name=None,
           platform=None):
    """Write a Vitis project for ``f`` at the shapes of ``example_args``.

    Args:
      f: the function (as for ``jit``; arrays in, arrays out).
      example_args: example inputs: the design's sizes, and the testbench's data.
      out_dir: the project folder (created; files in it are overwritten).
      part: "u280" or "u250" (``op_costs.PARTS``): memory banks and platform.
      clock_mhz: the kernel clock for v++ and the estimate.
      name: the top function's name (default: ``f.__name__``, made a C name).
      platform: the Vitis platform (default: the part's xdma platform name).
    Returns:
      the project folder as a ``pathlib.Path``.
    """
    import tjit
    if part not in PARTS:
        raise ValueError(f"tjit.fpga.export: unknown part {part!r}; known: "
                         f"{', '.join(PARTS)}")
    name = name or "".join(c if c.isalnum() else "_" for c in
                           getattr(f, "__name__", "kernel"))
    if not name or name[0].isdigit():
        name = "k_" + name
    lowered = tjit.jit(f).lower(*example_args)
    plan = compile_program(lowered.jaxpr, HLS)     # (checked before the g++ build)
    host = [type(s).__name__ for s in plan.steps if not isinstance(s, KernelStep)]
    if host or not plan.steps:
        raise ValueError(f"tjit.fpga.export: {name} is not one dataflow design (host "
                         f"steps: {', '.join(host) or 'none'}; kernels: "
                         f"{len(plan.kernels)}): export the parts without control flow "
                         f"or library calls, or run it with jit(backend='hls')")
    compiled = lowered.compile(backend="hls")
    prog = compiled.executable.program
    (design,) = compiled.executable.designs.values()
    flat = [np.asarray(a) for a in tjit.tree_util.tree_leaves(example_args)]
    want = [np.asarray(o) for o in tjit.tree_util.tree_leaves(tjit.jit(f)(*example_args))]
    out = pathlib.Path(out_dir)
    for sub in ("src", "csim/include", "host", "data"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    text = design.text.replace(f"void {design.top}(", f"void {name}(")
    (out / "src" / "kernel.cpp").write_text(text)
    shutil.copy(_INCLUDE / "tjit_dataflow.h", out / "src")
    for h in _INCLUDE.glob("*.h"):
        if h.name != "tjit_dataflow.h":
            shutil.copy(h, out / "csim" / "include")
    ports = _port_data(design, prog, flat, want, out / "data")
    if design.symbols:      # (example arguments fix every size)
        raise ValueError(f"tjit.fpga.export: {name} has symbolic sizes "
                         f"{design.symbols}; export it at concrete shapes")
    sizes = []
    (out / "csim" / "testbench.cpp").write_text(_testbench(name, ports, sizes))
    (out / "host" / "host.cpp").write_text(_host(name, ports, sizes))
    (out / "connectivity.cfg").write_text(_connectivity(name, ports, part))
    (out / "Makefile").write_text(_makefile(name, part, clock_mhz, platform))
    (out / "README.md").write_text(_readme(name, part, clock_mhz, ports,
                                           compiled.hls_report(part=part,
                                                               clock_mhz=clock_mhz)))
    return out


def _port_data(design, prog, flat, want, data):
    """Per port: (C name, C type, role, element count, data file or None, tolerance,
    the C name of the port an alias shares its buffer with, else None, the type the
    design's pointer points to: the C type or W-lane packets)."""
    ports = []
    home = {}
    for n, ((v, role, dt, _), cname) in enumerate(zip(design.ports, design.port_names)):
        dt = np.dtype(dt)
        count = int(np.prod([int(d) for d in prog.values[v].shape], dtype=np.int64))
        lanes = design.port_lanes[n]
        ptype = _CTYPES[dt.name] if lanes == 1 else f"hls::vector<{_CTYPES[dt.name]}, {lanes}>"
        if role == "alias":
            ports.append((cname, _CTYPES[dt.name], role, count, None, (0.0, 0.0), home[v],
                          ptype))
            continue
        home[v] = cname
        if role == "in":
            val = flat[prog.params.index(v)] if v in prog.params else prog.values[v].const
            arr = np.ascontiguousarray(np.asarray(val, dt))
        elif role == "out":
            arr = np.ascontiguousarray(np.asarray(want[prog.outputs.index(v)], dt))
        else:
            arr = None
        fname = None
        if arr is not None:
            fname = f"{role}{n}_{cname}.bin"
            arr.astype(arr.dtype.newbyteorder("<")).tofile(data / fname)
        ports.append((cname, _CTYPES[dt.name], role, count, fname,
                      _TOL.get(dt.name, (0.0, 0.0)), None, ptype))
    return ports


_TB_COMMON = r"""
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

template <class T>
static bool load(const std::string &path, std::vector<T> &v) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) { std::fprintf(stderr, "cannot open %s\n", path.c_str()); return false; }
  size_t got = std::fread(v.data(), sizeof(T), v.size(), f);
  std::fclose(f);
  if (got != v.size()) { std::fprintf(stderr, "%s: short file\n", path.c_str()); return false; }
  return true;
}

template <class T>
static long check(const char *name, const std::vector<T> &got, const std::vector<T> &want,
                  double rtol, double atol) {
  long bad = 0;
  double worst = 0;
  for (size_t i = 0; i < got.size(); i++) {
    double g = (double)got[i], w = (double)want[i];
    bool same = (g == w) || (std::isnan(g) && std::isnan(w));
    double err = std::fabs(g - w);
    if (!same && !(err <= atol + rtol * std::fabs(w))) {
      if (bad < 5) std::fprintf(stderr, "%s[%zu] = %.9g, tjit computed %.9g\n", name, i, g, w);
      bad++;
    }
    if (err > worst && !std::isnan(err)) worst = err;
  }
  std::printf("%s: %zu elements, max |error| %.3g, %ld mismatches\n", name, got.size(),
              worst, bad);
  return bad;
}
"""


def _decls(ports, data_dir):
    lines, args, checks = [], [], []
    for cname, ct, role, count, fname, (rtol, atol), home, ptype in ports:
        data = f"{home or cname}.data()"
        args.append(data if ptype == ct else f"reinterpret_cast<{ptype} *>({data})")
        if home is not None:        # the same buffer as port ``home``
            continue
        lines.append(f"  std::vector<{ct}> {cname}({max(count, 1)});")
        if role == "in":
            lines.append(f'  if (!load({data_dir} + "/{fname}", {cname})) return 2;')
        if role == "out":
            lines.append(f"  std::vector<{ct}> want_{cname}({max(count, 1)});")
            lines.append(f'  if (!load({data_dir} + "/{fname}", want_{cname})) return 2;')
            checks.append(f'  bad += check("{cname}", {cname}, want_{cname}, {rtol!r}, '
                          f'{atol!r});')
    return lines, args, checks


def _testbench(name, ports, sizes):
    lines, args, checks = _decls(ports, "dir")
    args += [str(v) for _, v in sizes]
    const = {p[0] for p in ports if p[2] == "in"}
    proto = ", ".join([f"{'const ' if r == 'in' or home in const else ''}{pt} *"
                       for _, ct, r, _, _, _, home, pt in ports] +
                      ["int64_t"] * len(sizes))
    return "\n".join([
        "// C simulation of the exported design: its stages run in threads over bounded",
        "// streams (tjit's headers in csim/include); outputs are checked against tjit.",
        '#include "tjit_sim_api.h"', "#include <hls_vector.h>", _TB_COMMON,
        f'extern "C" void {name}({proto});', "",
        "int main(int argc, char **argv) {",
        '  std::string dir = argc > 1 ? argv[1] : "data";',
        *lines, f"  {name}({', '.join(args)});",
        "  if (tj_sim_last_error()[0]) {",
        '    std::fprintf(stderr, "C simulation failed: %s\\n", tj_sim_last_error());',
        "    return 3;", "  }", "  long bad = 0;", *checks,
        '  std::printf(bad ? "FAIL\\n" : "PASS\\n");', "  return bad ? 1 : 0;", "}", ""])


def _host(name, ports, sizes):
    lines = ["// XRT native-API host program: runs the design on the example inputs from",
             "// data/ and checks its outputs against the values tjit computed.",
             "#include <xrt/xrt_bo.h>", "#include <xrt/xrt_device.h>",
             "#include <xrt/xrt_kernel.h>", _TB_COMMON,
             "int main(int argc, char **argv) {",
             "  if (argc < 2) {",
             f'    std::fprintf(stderr, "usage: %s {name}.xclbin [data dir]\\n", argv[0]);',
             "    return 2;", "  }",
             '  std::string dir = argc > 2 ? argv[2] : "data";',
             "  xrt::device device(0);", "  auto uuid = device.load_xclbin(argv[1]);",
             f'  xrt::kernel krnl(device, uuid, "{name}");']
    decl, _, checks = _decls(ports, "dir")
    lines += decl
    for n, (cname, ct, role, count, *_rest) in enumerate(ports):
        if role == "alias":         # its buffer is its home port's (the same bank)
            continue
        lines.append(f"  xrt::bo bo_{cname}(device, sizeof({ct}) * {max(count, 1)}, "
                     f"krnl.group_id({n}));")
        if role == "in":
            lines.append(f"  bo_{cname}.write({cname}.data());")
            lines.append(f"  bo_{cname}.sync(XCL_BO_SYNC_BO_TO_DEVICE);")
    call = [f"bo_{p[6] or p[0]}" for p in ports] + [f"(int64_t){v}" for _, v in sizes]
    lines += [f"  auto run = krnl({', '.join(call)});", "  run.wait();"]
    for cname, ct, role, *_ in ports:
        if role == "out":
            lines.append(f"  bo_{cname}.sync(XCL_BO_SYNC_BO_FROM_DEVICE);")
            lines.append(f"  bo_{cname}.read({cname}.data());")
    lines += ["  long bad = 0;", *checks, '  std::printf(bad ? "FAIL\\n" : "PASS\\n");',
              "  return bad ? 1 : 0;", "}", ""]
    return "\n".join(lines)


def _connectivity(name, ports, part):
    bank = (lambda n: f"HBM[{n % 32}]") if part == "u280" else (lambda n: f"DDR[{n % 4}]")
    lines = ["[connectivity]", f"nk={name}:1:{name}_1"]
    first = {p[0]: n for n, p in enumerate(ports)}     # an alias: its home port's bank
    lines += [f"sp={name}_1.{p[0]}:{bank(first[p[6] or p[0]])}" for p in ports]
    return "\n".join(lines) + "\n"


_PLATFORMS = {"u280": "xilinx_u280_gen3x16_xdma_1_202211_1",
              "u250": "xilinx_u250_gen3x16_xdma_4_1_202210_1"}


def _makefile(name, part, clock_mhz, platform):
    opts = " ".join(o for o in CSIM_OPTIONS if o not in ("-fPIC", "-shared"))
    return f"""# Generated by tjit.fpga.export. `make csim` needs only g++; the other targets need
# Vitis (v++) and, for running on a card, XRT (source settings64.sh and setup.sh first).
NAME := {name}
PLATFORM ?= {platform or _PLATFORMS[part]}
CLOCK_MHZ ?= {clock_mhz}
CXX ?= g++
CSIM_FLAGS := {opts} -Isrc -Icsim/include
VPP_FLAGS := --platform $(PLATFORM) --kernel $(NAME) --hls.clock $(CLOCK_MHZ)000000:$(NAME) -Isrc

.PHONY: csim csynth hw_emu hw host clean

csim: build/csim
\t./build/csim data

build/csim: src/kernel.cpp csim/testbench.cpp
\tmkdir -p build
\t$(CXX) $(CSIM_FLAGS) src/kernel.cpp csim/testbench.cpp -o $@

csynth: build/$(NAME).hw.xo

build/$(NAME).%.xo: src/kernel.cpp
\tmkdir -p build
\tv++ -c -t $* $(VPP_FLAGS) -o $@ src/kernel.cpp

build/$(NAME).%.xclbin: build/$(NAME).%.xo connectivity.cfg
\tv++ -l -t $* --platform $(PLATFORM) --config connectivity.cfg -o $@ $<

hw_emu: build/$(NAME).hw_emu.xclbin host
\temconfigutil --platform $(PLATFORM) --od build
\tXCL_EMULATION_MODE=hw_emu ./build/host build/$(NAME).hw_emu.xclbin data

hw: build/$(NAME).hw.xclbin host

host: build/host

build/host: host/host.cpp
\tmkdir -p build
\t$(CXX) -std=c++17 -O2 -Wall -I$(XILINX_XRT)/include host/host.cpp -o $@ \\
\t\t-L$(XILINX_XRT)/lib -lxrt_coreutil -pthread

clean:
\trm -rf build _x .Xil *.log
"""


def _readme(name, part, clock_mhz, ports, report):
    p = PARTS[part]
    rows = "\n".join(f"| `{c}` | {r} | `{t}` | {n} |" for c, t, r, n, *_ in ports)
    return f"""# {name}: an FPGA dataflow design generated by tjit

`src/kernel.cpp` is the design: the fused kernels of the jitted function are stages of
the top function `{name}` under `#pragma HLS DATAFLOW`, connected by `hls::stream`s
where a value flows in order from one stage to the next (other intermediates are on-chip
buffers or DRAM scratch ports). Target: {p.name} ({p.device}) at {clock_mhz} MHz.

| port | role | element | elements |
|---|---|---|---|
{rows}

## Targets

* `make csim`: C simulation with g++ only. The stages run in threads over bounded FIFOs
  (tjit's headers in `csim/include`), so an under-sized stream deadlocks as on the
  device and is reported; the outputs are checked against the values tjit computed
  (`data/`; floats within a relative 1e-4, as sums are reassociated).
* `make csynth`: Vitis HLS synthesis through `v++ -c -t hw` (needs Vitis; set
  `PLATFORM=` for another shell).
* `make hw_emu`: hardware emulation: links with `connectivity.cfg`, builds the XRT host
  program (`host/host.cpp`) and runs it under `XCL_EMULATION_MODE=hw_emu`.
* `make hw`: the `.xclbin` for the card and the host program; run
  `./build/host build/{name}.hw.xclbin data`.

Control flow that cannot be pipelined (data-dependent while loops) is not part of a
design: tjit runs it on the host between design invocations.

## Estimate (tjit's model, not a synthesis result)

```
{report}
```
"""
