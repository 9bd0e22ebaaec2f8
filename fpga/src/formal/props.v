// Protocol properties for `edgelearn formal`, written once and bound to the ports of every
// block that has them by a generated harness (fpga/src/formal). Read with
// `read_verilog -formal`: immediate assertions and assumptions, anyconst. Nothing is
// checked in a cycle with the active-high `reset` high or in the cycle after one.

// AXI-Stream handshake rules on one port: once valid, the beat stays valid and its payload
// stays put until ready takes it. DUT_DRIVES = 1: the block drives valid (asserted);
// 0: the harness drives it (assumed, so the block sees only lawful traffic).
module el_axis_rules #(parameter W = 1, parameter DUT_DRIVES = 1) (
    input wire clock,
    input wire reset,
    input wire valid,
    input wire ready,
    input wire [W-1:0] payload
);
    // The previous cycle: after a reset-free cycle, a stalled beat.
    reg f_stalled = 1'b0;
    reg [W-1:0] f_payload = 0;
    always @(posedge clock) begin
        f_stalled <= !reset && valid && !ready;
        f_payload <= payload;
    end
    always @(*) begin
        if (f_stalled && !reset) begin
            if (DUT_DRIVES) begin
                assert(valid);
                assert(payload == f_payload);
            end else begin
                assume(valid);
                assume(payload == f_payload);
            end
        end
    end
endmodule

// Beats in, beats out: the beat numbered f_index (any number: the solver picks it) leaves
// with the payload it came in with, so no beat is lost, duplicated, reordered or changed
// (payload = {TLAST, TUSER, TDATA}). The block never offers a beat it does not hold, holds
// at most CAPACITY, offers a held beat within LATENCY cycles, and, when it has them, its
// `count` output equals the beats held, its `packets` output the TLAST beats held, and its
// input is ready exactly when it has room.
module el_axis_scoreboard #(
    parameter W = 1,
    parameter CAPACITY = 1,
    parameter LATENCY = 1,
    parameter CW = 8,
    parameter HAS_COUNT = 0,
    parameter HAS_PACKETS = 0,
    parameter HAS_READY = 0
) (
    input wire clock,
    input wire reset,
    input wire in_fire,
    input wire [W-1:0] in_payload,
    input wire in_last,
    input wire in_ready,
    input wire out_valid,
    input wire out_fire,
    input wire [W-1:0] out_payload,
    input wire out_last,
    input wire [31:0] count,
    input wire [31:0] packets
);
    (* anyconst *) reg [CW-1:0] f_index;
    reg [CW-1:0] f_in = 0;
    reg [CW-1:0] f_out = 0;
    reg [CW-1:0] f_lasts_in = 0;
    reg [CW-1:0] f_lasts_out = 0;
    reg [CW-1:0] f_wait = 0;
    reg [W-1:0] f_beat = 0;
    reg f_have = 1'b0;
    reg f_was_reset = 1'b1;
    wire [CW-1:0] f_held = f_in - f_out;
    wire [CW-1:0] f_held_lasts = f_lasts_in - f_lasts_out;
    wire f_starving = f_held != 0 && !out_valid;
    always @(posedge clock) begin
        f_was_reset <= reset;
        if (reset) begin
            f_in <= 0;
            f_out <= 0;
            f_lasts_in <= 0;
            f_lasts_out <= 0;
            f_wait <= 0;
            f_have <= 1'b0;
        end else begin
            if (in_fire) f_in <= f_in + 1'b1;
            if (out_fire) f_out <= f_out + 1'b1;
            if (in_fire && in_last) f_lasts_in <= f_lasts_in + 1'b1;
            if (out_fire && out_last) f_lasts_out <= f_lasts_out + 1'b1;
            if (in_fire && f_in == f_index) begin
                f_beat <= in_payload;
                f_have <= 1'b1;
            end
            f_wait <= f_starving ? f_wait + 1'b1 : 0;
        end
    end
    // The counters never wrap within the proof's depth.
    always @(*) assume(f_in != {CW{1'b1}});
    always @(posedge clock) begin
        if (!reset && !f_was_reset) begin
            assert(f_held <= CAPACITY);
            assert(!out_valid || f_held != 0);
            assert(!(f_starving && f_wait >= LATENCY - 1));
            if (out_fire && f_out == f_index) begin
                assert(f_have);
                assert(out_payload == f_beat);
            end
            if (HAS_COUNT) assert(count == f_held);
            if (HAS_PACKETS) assert(packets == f_held_lasts);
            if (HAS_READY) assert(in_ready == (f_held < CAPACITY));
        end
    end
endmodule

// An AXI4-Lite slave in front of a register port (reg_addr, reg_wdata, reg_we, reg_rdata).
// The master's rules are assumed; the slave's are asserted: every valid held with its
// payload until ready, one response per request (a response only for a request taken, one
// request at a time), a response within RESPONSE_WITHIN cycles, only OKAY or SLVERR.
// Byte strobes: a register write replaces exactly the strobed bytes of the register read
// at the same address, the address is the request's, and only a write with strobes writes.
// Reads return the register: one register, at an address the solver picks, is modelled.
module el_axil_slave #(
    parameter AW = 12,
    parameter RW = 8,
    parameter RESPONSE_WITHIN = 4
) (
    input wire clock,
    input wire reset,
    input wire [AW-1:0] awaddr, input wire awvalid, input wire awready,
    input wire [31:0] wdata, input wire [3:0] wstrb, input wire wvalid, input wire wready,
    input wire [1:0] bresp, input wire bvalid, input wire bready,
    input wire [AW-1:0] araddr, input wire arvalid, input wire arready,
    input wire [31:0] rdata, input wire [1:0] rresp, input wire rvalid, input wire rready,
    input wire [RW-1:0] reg_addr, input wire [31:0] reg_wdata, input wire reg_we,
    input wire [31:0] reg_rdata
);
    el_axis_rules #(.W(AW), .DUT_DRIVES(0)) aw (clock, reset, awvalid, awready, awaddr);
    el_axis_rules #(.W(36), .DUT_DRIVES(0)) w (clock, reset, wvalid, wready, {wstrb, wdata});
    el_axis_rules #(.W(AW), .DUT_DRIVES(0)) ar (clock, reset, arvalid, arready, araddr);
    el_axis_rules #(.W(2), .DUT_DRIVES(1)) b (clock, reset, bvalid, bready, bresp);
    el_axis_rules #(.W(34), .DUT_DRIVES(1)) r (clock, reset, rvalid, rready, {rresp, rdata});

    // Requests and responses, and what the write in flight asked for.
    reg [3:0] f_aw = 0, f_w = 0, f_b = 0, f_ar = 0, f_r = 0, f_wait = 0;
    reg f_wrote = 1'b0;
    reg [AW-1:0] f_waddr = 0, f_raddr = 0;
    reg [31:0] f_wdata = 0;
    reg [3:0] f_wstrb = 0;
    reg f_was_reset = 1'b1;
    // The register at f_reg_addr, as the slave reads and writes it.
    (* anyconst *) reg [RW-1:0] f_reg_addr;
    (* anyconst *) reg [31:0] f_reg_init;
    reg [31:0] f_reg_written = 0;
    reg f_reg_set = 1'b0;
    wire [31:0] f_reg = f_reg_set ? f_reg_written : f_reg_init;
    always @(*) if (reg_addr == f_reg_addr) assume(reg_rdata == f_reg);
    wire [31:0] f_mask = {{8{f_wstrb[3]}}, {8{f_wstrb[2]}}, {8{f_wstrb[1]}}, {8{f_wstrb[0]}}};
    wire f_pending = (f_aw != f_b) || (f_ar != f_r);
    always @(posedge clock) begin
        f_was_reset <= reset;
        if (reg_we && reg_addr == f_reg_addr) begin
            f_reg_written <= reg_wdata;
            f_reg_set <= 1'b1;
        end
        if (reset) begin
            {f_aw, f_w, f_b, f_ar, f_r, f_wait} <= 0;
            f_wrote <= 1'b0;
        end else begin
            if (awvalid && awready) begin
                f_aw <= f_aw + 1'b1;
                f_waddr <= awaddr;
                f_wrote <= 1'b0;
            end
            if (wvalid && wready) begin
                f_w <= f_w + 1'b1;
                f_wdata <= wdata;
                f_wstrb <= wstrb;
            end
            if (arvalid && arready) begin
                f_ar <= f_ar + 1'b1;
                f_raddr <= araddr;
            end
            if (bvalid && bready) f_b <= f_b + 1'b1;
            if (rvalid && rready) f_r <= f_r + 1'b1;
            if (reg_we) f_wrote <= 1'b1;
            f_wait <= (f_pending && !bvalid && !rvalid) ? f_wait + 1'b1 : 0;
        end
    end
    always @(*) assume(f_aw != 4'hf && f_ar != 4'hf);
    always @(posedge clock) begin
        if (!reset && !f_was_reset) begin
            // One request at a time, each answered once.
            assert(f_aw == f_w);
            assert(f_aw - f_b <= 1 && f_ar - f_r <= 1);
            assert(f_aw == f_b || f_ar == f_r);
            assert(!bvalid || f_aw != f_b);
            assert(!rvalid || f_ar != f_r);
            assert(f_wait < RESPONSE_WITHIN);
            assert(!bvalid || bresp == 2'd0 || bresp == 2'd2);
            assert(!rvalid || rresp == 2'd0 || rresp == 2'd2);
            assert(!rvalid || rresp == 2'd0 || rdata == 0);
            // Byte strobes: one register write per OKAY write with strobes, of the right
            // word, changing exactly the strobed bytes.
            if (reg_we) begin
                assert(f_aw != f_b && !f_wrote && f_wstrb != 0);
                assert(reg_addr == f_waddr[RW+1:2]);
                assert(reg_wdata == ((reg_rdata & ~f_mask) | (f_wdata & f_mask)));
            end
            if (bvalid) assert(f_wrote == (f_wstrb != 0 && bresp == 2'd0));
            // Reads return the register.
            if (rvalid && rresp == 2'd0 && f_raddr[RW+1:2] == f_reg_addr) assert(rdata == f_reg);
        end
    end
endmodule
