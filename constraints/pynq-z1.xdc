## PYNQ-Z1 (xc7z020clg400-1) constraints for edgelearn blocks.
##
## Out-of-context synthesis of one emitted block (its ports stay unplaced) only needs the
## clock: the board's 125 MHz oscillator period on the block's `clock` port.
create_clock -period 8.000 -name clock -waveform {0.000 4.000} [get_ports clock]

## Board pins, for a top level that brings `clock` and `reset` out to the board (PYNQ-Z1
## reference manual / Digilent master XDC): 125 MHz system clock on H16, push button BTN0 on
## D19 as the synchronous active-high reset, LED0..LED3 on R14, P14, N16, M14.
## Uncomment in such a top:
# set_property -dict { PACKAGE_PIN H16 IOSTANDARD LVCMOS33 } [get_ports clock]
# set_property -dict { PACKAGE_PIN D19 IOSTANDARD LVCMOS33 } [get_ports reset]
# set_property -dict { PACKAGE_PIN R14 IOSTANDARD LVCMOS33 } [get_ports {led[0]}]
# set_property -dict { PACKAGE_PIN P14 IOSTANDARD LVCMOS33 } [get_ports {led[1]}]
# set_property -dict { PACKAGE_PIN N16 IOSTANDARD LVCMOS33 } [get_ports {led[2]}]
# set_property -dict { PACKAGE_PIN M14 IOSTANDARD LVCMOS33 } [get_ports {led[3]}]
