#!/bin/sh
# Resource table of emitted blocks with Yosys (docs/BENCHMARKS.md, "Resources").
#
#   edgelearn emit --all --out build/verilog
#   fpga/resources.sh build/verilog [BLOCK...] > resources.md
#
# Each BLOCK.v is synthesized alone for a Xilinx 7-series part (the PYNQ-Z1's xc7z020):
# `synth_xilinx -family xc7 -flatten -top BLOCK`, no timing. Prints a Markdown table.
set -eu
dir=${1:?usage: fpga/resources.sh DIR [BLOCK...]}
shift
if [ $# -eq 0 ]; then
    set -- $(cd "$dir" && ls *.v | sed 's/\.v$//')
fi
command -v yosys >/dev/null || { echo "yosys not found (make tools installs it)" >&2; exit 2; }
echo "| block | LUT | FF | CARRY4 | MUXF7 / F8 | DSP48E1 | RAMB18E1 / RAMB36E1 |"
echo "|---|---|---|---|---|---|---|"
for b in "$@"; do
    log=$(mktemp)
    yosys -q -p "read_verilog $dir/$b.v; synth_xilinx -family xc7 -flatten -top $b; tee -q -o $log stat" >/dev/null
    count() { awk -v c="$1" '$2 ~ "^"c"$" {n += $1} $1 ~ "^"c"$" {n += $2} END {print n + 0}' "$log"; }
    lut=0
    for k in 1 2 3 4 5 6; do lut=$((lut + $(count LUT$k))); done
    ff=0
    for k in FDRE FDSE FDCE FDPE; do ff=$((ff + $(count $k))); done
    echo "| \`$b\` | $lut | $ff | $(count CARRY4) | $(count MUXF7) / $(count MUXF8) | $(count DSP48E1) | $(count RAMB18E1) / $(count RAMB36E1) |"
    rm -f "$log"
done
