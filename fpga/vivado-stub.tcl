# A stand-in for Vivado, for tests (tests/vivado.rs): every Vivado command that the scripts
# of `edgelearn vivado` use is a proc here that records its call and returns a plausible
# handle; any other command fails through `unknown` (and is remembered, so that a `catch`
# cannot hide it). It checks what Vivado would refuse: add_files of a missing file, a module
# reference to a module no added source defines, a pin or address space of a block-design
# cell that was never created, and a run's progress asked before the run was launched.
#
# Usage: tclsh fpga/vivado-stub.tcl LOG SCRIPT...
# Sources each SCRIPT at global level; LOG gets one line per call: the command and its
# arguments separated by \x1f (newlines inside an argument written as \n), a line
# `source<US>SCRIPT` before each script and `end` after the last. Exit status 0 only when
# every script ran to its end and no unknown command was called.

namespace eval stub {
    variable log ""
    variable cells {}
    variable files {}
    variable runs {}
    variable unknown {}
}
namespace eval ipx {}

proc stub::record {cmd args} {
    variable log
    set line [join [concat [list $cmd] $args] \x1f]
    puts $log [string map [list \n \\n] $line]
}

# Commands whose result does not matter: record, return "".
foreach cmd {
    set_property update_compile_order close_project apply_bd_automation connect_bd_net
    connect_bd_intf_net assign_bd_address validate_bd_design save_bd_design generate_target
    make_wrapper wait_on_run write_hw_platform
    ipx::package_project ipx::infer_bus_interfaces ipx::create_xgui_files
    ipx::update_checksums ipx::check_integrity ipx::save_core
} {
    proc $cmd args "stub::record $cmd {*}\$args; return {}"
}

# Lookups of IP-packager objects that a fresh core does not have yet.
foreach cmd {
    ipx::get_bus_interfaces ipx::get_bus_parameters ipx::get_memory_maps ipx::get_address_blocks
} {
    proc $cmd args "stub::record $cmd {*}\$args; return {}"
}

# Commands that create a named object: return its name.
proc create_bd_design args { stub::record create_bd_design {*}$args; return [lindex $args end] }
proc ipx::infer_bus_interface args { stub::record ipx::infer_bus_interface {*}$args; return [lindex $args 0] }
proc ipx::add_bus_parameter args { stub::record ipx::add_bus_parameter {*}$args; return [lindex $args 0] }
proc ipx::add_memory_map args { stub::record ipx::add_memory_map {*}$args; return [lindex $args 0] }
proc ipx::add_address_block args { stub::record ipx::add_address_block {*}$args; return [lindex $args 0] }

proc create_project args { stub::record create_project {*}$args; return [lindex $args end-2] }
proc current_project args { stub::record current_project {*}$args; return edgelearn }
proc current_fileset args { stub::record current_fileset {*}$args; return sources_1 }
proc current_design args { stub::record current_design {*}$args; return design_1 }
proc ipx::current_core args { stub::record ipx::current_core {*}$args; return core_1 }
proc get_files args { stub::record get_files {*}$args; return [lindex $args end] }
proc get_ports args { stub::record get_ports {*}$args; return [lindex $args end] }
# No board files here: the scripts must work with the part alone.
proc get_board_parts args { stub::record get_board_parts {*}$args; return {} }
proc create_clock args { stub::record create_clock {*}$args; return [lindex $args end] }

# add_files: every file must exist; the last argument is a list of files (logged one by one).
proc add_files args {
    set files [lindex $args end]
    foreach f $files {
        if {![file isfile $f]} { error "vivado-stub: add_files: no file $f" }
        lappend stub::files $f
    }
    stub::record add_files {*}[lrange $args 0 end-1] {*}$files
}

proc create_bd_cell args {
    set name [lindex $args end]
    set i [lsearch -exact $args -reference]
    if {$i >= 0} {
        set module [lindex $args [expr {$i + 1}]]
        set found 0
        foreach f $stub::files {
            set fd [open $f]
            set text [read $fd]
            close $fd
            if {[regexp "(^|\n)\\s*module\\s+\\m$module\\M" $text]} { set found 1 }
        }
        if {!$found} { error "vivado-stub: module reference to `$module`, defined in no added source" }
    }
    lappend stub::cells $name
    stub::record create_bd_cell {*}$args
    return /$name
}

# Pins, interface pins, address spaces and segments of cells: the cell must exist.
proc stub::of_cell {cmd args} {
    set path [lindex $args end]
    set cell [lindex [split [string trimleft $path /] /] 0]
    if {[lsearch -exact $stub::cells $cell] < 0} {
        error "vivado-stub: $cmd $path: no block-design cell `$cell`"
    }
    stub::record $cmd {*}$args
    return $path
}
foreach cmd {get_bd_pins get_bd_intf_pins get_bd_addr_spaces get_bd_addr_segs} {
    proc $cmd args "stub::of_cell $cmd {*}\$args"
}

proc launch_runs args {
    lappend stub::runs [lindex $args 0]
    stub::record launch_runs {*}$args
}
proc get_runs args { stub::record get_runs {*}$args; return [lindex $args end] }
proc get_property {name object} {
    stub::record get_property $name $object
    switch -- $name {
        PROGRESS { return [expr {[lsearch -exact $stub::runs $object] >= 0 ? "100%" : "0%"}] }
        DIRECTORY { return [file join vivado edgelearn.runs $object] }
        default { return {} }
    }
}

proc unknown {cmd args} {
    lappend stub::unknown $cmd
    error "vivado-stub: `$cmd` is not a Vivado command this stub knows"
}

if {[info exists argv0] && [file normalize $argv0] eq [file normalize [info script]]} {
    if {[llength $argv] < 2} {
        puts stderr "usage: tclsh vivado-stub.tcl LOG SCRIPT..."
        exit 2
    }
    set stub::log [open [lindex $argv 0] w]
    foreach script [lrange $argv 1 end] {
        stub::record source $script
        if {[catch {uplevel #0 [list source $script]} msg]} {
            close $stub::log
            puts stderr "vivado-stub: $script: $msg"
            exit 1
        }
    }
    stub::record end
    close $stub::log
    if {[llength $stub::unknown] > 0} {
        puts stderr "vivado-stub: unknown commands called (and caught): $stub::unknown"
        exit 1
    }
    exit 0
}
