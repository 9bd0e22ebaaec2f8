## PYNQ-Z1 (xc7z020clg400-1) constraints for edgelearn designs.
##
## Block-design flow (`edgelearn vivado --board pynq-z1`): the Zynq PS clocks the fabric.
## The design's `clock` is the PS's FCLK_CLK0 and its reset comes from a proc_sys_reset on
## FCLK_RESET0_N, both inside the block design; the processing_system7 IP constrains
## clk_fpga_0 itself at the frequency it is set to (75 MHz by default, the thesis's), so this
## file creates no clock. The AXI-Lite, AXI-Stream and DMA nets are internal: no pin is placed.
##
## Out-of-context synthesis of one emitted block (its ports unplaced) needs only its clock at
## the board oscillator's 125 MHz; in such a run, uncomment:
# create_clock -period 8.000 -name clock -waveform {0.000 4.000} [get_ports clock]
##
## Board pins (PYNQ-Z1 reference manual / Digilent master XDC), for a top level that brings
## its own ports out to the board instead of the PS: 125 MHz system clock on H16 (from the
## Ethernet PHY, 8 ns), push button BTN0 on D19 as a synchronous active-high reset,
## LED0..LED3 on R14, P14, N16, M14. Uncomment in such a top:
# set_property -dict { PACKAGE_PIN H16 IOSTANDARD LVCMOS33 } [get_ports sysclk]
# create_clock -period 8.000 -name sysclk -waveform {0.000 4.000} [get_ports sysclk]
# set_property -dict { PACKAGE_PIN D19 IOSTANDARD LVCMOS33 } [get_ports reset]
# set_property -dict { PACKAGE_PIN R14 IOSTANDARD LVCMOS33 } [get_ports {led[0]}]
# set_property -dict { PACKAGE_PIN P14 IOSTANDARD LVCMOS33 } [get_ports {led[1]}]
# set_property -dict { PACKAGE_PIN N16 IOSTANDARD LVCMOS33 } [get_ports {led[2]}]
# set_property -dict { PACKAGE_PIN M14 IOSTANDARD LVCMOS33 } [get_ports {led[3]}]

## Bitstream: compressed (PYNQ loads it the same; the file is several times smaller).
set_property BITSTREAM.GENERAL.COMPRESS TRUE [current_design]
