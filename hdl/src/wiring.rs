//! `wiring!`: a block's connections written once, as a table, from which the three places
//! rust-hdl needs them are made: the Verilog (one `always @(*) DST = SRC;` per connection,
//! in table order), `update()` (`DST.next = SRC.val()`) and `connect()` (`DST.connect()`).
//! For a block that is only wiring (a shell around its sub-blocks) and writes its own
//! Verilog, so nothing can be connected in one of the three and forgotten in another.
//!
//! ```ignore
//! edgelearn_hdl::wiring! {
//!     impl Shell {
//!         inner.clock <= clock;
//!         inner.data <= data_q.q;
//!         for j in (0..4) {
//!             rread.word[j] <= inner.word[j];
//!         }
//!         out <= inner.result;
//!     }
//! }
//! ```
//!
//! makes `Shell::wires()` (the `(destination, source)` Verilog names: `inner$clock`,
//! `rread$word$2`, `out`), `Shell::update_wires(&mut self)` and
//! `Shell::connect_wires(&mut self)`; the block's `Logic` calls them. A destination is a
//! port of the block (an output) or an input of a sub-block; a source an input of the block
//! or an output of a sub-block. Loops index arrays of signals (`for j in (RANGE) { .. }`,
//! indexed signals only).

/// See the module documentation.
#[macro_export]
macro_rules! wiring {
    (impl $ty:ty { $($body:tt)* }) => {
        impl $ty {
            /// Every connection as `(destination, source)` Verilog names, in table order.
            #[allow(clippy::vec_init_then_push)]
            fn wires() -> Vec<(String, String)> {
                let mut w: Vec<(String, String)> = Vec::new();
                $crate::wiring!(@names w; $($body)*);
                w
            }

            /// Every connection's `update()` statement, in table order.
            fn update_wires(&mut self) {
                $crate::wiring!(@update self; $($body)*);
            }

            /// Every connection's destination, connected.
            fn connect_wires(&mut self) {
                $crate::wiring!(@connect self; $($body)*);
            }
        }
    };

    (@names $w:ident;) => {};
    (@names $w:ident; for $j:ident in ($($r:tt)*) { $($inner:tt)* } $($rest:tt)*) => {
        for $j in $($r)* {
            $crate::wiring!(@names_at $w $j; $($inner)*);
        }
        $crate::wiring!(@names $w; $($rest)*);
    };
    (@names $w:ident; $($d:ident).+ <= $($s:ident).+ ; $($rest:tt)*) => {
        $w.push((
            [$(stringify!($d)),+].join("$"),
            [$(stringify!($s)),+].join("$"),
        ));
        $crate::wiring!(@names $w; $($rest)*);
    };
    (@names_at $w:ident $j:ident;) => {};
    (@names_at $w:ident $j:ident; $($d:ident).+ [$dj:ident] <= $($s:ident).+ [$sj:ident] ; $($rest:tt)*) => {
        $w.push((
            format!("{}${}", [$(stringify!($d)),+].join("$"), $dj),
            format!("{}${}", [$(stringify!($s)),+].join("$"), $sj),
        ));
        $crate::wiring!(@names_at $w $j; $($rest)*);
    };

    (@update $me:ident;) => {};
    (@update $me:ident; for $j:ident in ($($r:tt)*) { $($inner:tt)* } $($rest:tt)*) => {
        for $j in $($r)* {
            $crate::wiring!(@update_at $me $j; $($inner)*);
        }
        $crate::wiring!(@update $me; $($rest)*);
    };
    (@update $me:ident; $($d:ident).+ <= $($s:ident).+ ; $($rest:tt)*) => {
        $me.$($d).+.next = $me.$($s).+.val();
        $crate::wiring!(@update $me; $($rest)*);
    };
    (@update_at $me:ident $j:ident;) => {};
    (@update_at $me:ident $j:ident; $($d:ident).+ [$dj:ident] <= $($s:ident).+ [$sj:ident] ; $($rest:tt)*) => {
        $me.$($d).+[$dj].next = $me.$($s).+[$sj].val();
        $crate::wiring!(@update_at $me $j; $($rest)*);
    };

    (@connect $me:ident;) => {};
    (@connect $me:ident; for $j:ident in ($($r:tt)*) { $($inner:tt)* } $($rest:tt)*) => {
        for $j in $($r)* {
            $crate::wiring!(@connect_at $me $j; $($inner)*);
        }
        $crate::wiring!(@connect $me; $($rest)*);
    };
    (@connect $me:ident; $($d:ident).+ <= $($s:ident).+ ; $($rest:tt)*) => {
        $me.$($d).+.connect();
        $crate::wiring!(@connect $me; $($rest)*);
    };
    (@connect_at $me:ident $j:ident;) => {};
    (@connect_at $me:ident $j:ident; $($d:ident).+ [$dj:ident] <= $($s:ident).+ [$sj:ident] ; $($rest:tt)*) => {
        $me.$($d).+[$dj].connect();
        $crate::wiring!(@connect_at $me $j; $($rest)*);
    };
}

#[cfg(test)]
mod tests {
    use rust_hdl::prelude::*;

    /// A shell: a register behind the input, four words through, the register's output out.
    #[derive(Clone, Debug, LogicBlock, Default)]
    struct Shell {
        clock: Signal<In, Clock>,
        data: Signal<In, Bits<8>>,
        words: [Signal<In, Bits<4>>; 4],
        out: Signal<Out, Bits<8>>,
        copies: [Signal<Out, Bits<4>>; 4],
        data_q: DFF<Bits<8>>,
    }

    crate::wiring! {
        impl Shell {
            data_q.clock <= clock;
            data_q.d <= data;
            for j in (0..4) {
                copies[j] <= words[j];
            }
            out <= data_q.q;
        }
    }

    impl Logic for Shell {
        fn update(&mut self) {
            self.update_wires();
        }
        fn connect(&mut self) {
            self.connect_wires();
        }
        fn hdl(&self) -> Verilog {
            let mut v = String::new();
            for (d, s) in Self::wires() {
                v += &format!("always @(*) {d} = {s};\n");
            }
            Verilog::Custom(v)
        }
    }

    #[test]
    fn one_table_makes_the_names_the_updates_and_the_connections() {
        let w = Shell::wires();
        assert_eq!(w[0], ("data_q$clock".into(), "clock".into()));
        assert_eq!(w[1], ("data_q$d".into(), "data".into()));
        assert_eq!(w[4], ("copies$2".into(), "words$2".into()));
        assert_eq!(w.last().unwrap(), &("out".into(), "data_q$q".into()));
        assert_eq!(w.len(), 7);
        // Every destination connected: rust-hdl's checker accepts the block.
        let mut s = Shell::default();
        s.connect_all();
        check_all(&s).unwrap();
        // And the update copies: the simulator moves the data through the register.
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<Shell>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut ep: Sim<Shell>| {
            let mut x = ep.init()?;
            x.data.next = 0x5a.into();
            x.words[2].next = 0x9.into();
            wait_clock_true!(ep, clock, x);
            wait_clock_cycle!(ep, clock, x);
            sim_assert_eq!(ep, x.out.val(), 0x5a, x);
            sim_assert_eq!(ep, x.copies[2].val(), 0x9, x);
            ep.done(x)
        });
        sim.run(Box::new(s), 100).unwrap();
        let mut s = Shell::default();
        s.connect_all();
        let v = crate::design::verilog_named("shell", &s).unwrap();
        assert!(v.contains("always @(*) copies$3 = words$3;"), "{v}");
    }
}
