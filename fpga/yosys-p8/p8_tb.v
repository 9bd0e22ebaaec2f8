// Bench of p8.v: prints neg and lt for two inputs. IEEE 1364 (and Icarus, Verilator):
// a=80 neg=1 lt=1, then a=10 neg=1 lt=0.
module tb;
  reg [7:0] a;
  wire neg, lt;
  p8 dut(.a(a), .neg(neg), .lt(lt));
  initial begin
    a = 8'h80; #1 $display("a=80 neg=%b lt=%b", neg, lt);
    a = 8'h10; #1 $display("a=10 neg=%b lt=%b", neg, lt);
  end
endmodule
