# edgelearn: `make demo` and `make test` are the two entry points (see README.md).
# Both install the HDL tools first when they are missing (Debian/Ubuntu: apt-get).

CARGO ?= cargo
HDL_TOOLS := iverilog vvp yosys verilator
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test tools build fmt lint clean resources

## demo: emit every block to build/verilog and run the thesis matmul test on every backend
demo: tools
	$(CARGO) run --release --quiet -- demo --out build

## test: the whole suite (rust-hdl, Icarus, Verilator and Yosys-netlist benches)
test: tools
	$(CARGO) test --release --workspace

## tools: install iverilog, yosys and verilator with apt-get if any is missing
tools:
	@missing=""; for t in $(HDL_TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make: missing$$missing; installing iverilog yosys verilator with apt-get"; \
	  $(SUDO) apt-get update && $(SUDO) apt-get install -y iverilog yosys verilator; \
	fi

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
