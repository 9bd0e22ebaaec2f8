// P8: rust-hdl emits Constant<Signed<N>> as an unsized `localparam signed`.
module p8(input [7:0] a, output neg, output lt);
  localparam signed P = 8'h9c;   // -100 as a signed 8-bit value
  assign neg = P < 0;            // IEEE 1364: 1
  assign lt = $signed(a) < P;    // signed compare: a = 8'h80 (-128) gives 1, 8'h10 gives 0
endmodule
