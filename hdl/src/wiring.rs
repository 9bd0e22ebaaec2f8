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
    (impl[$($g:tt)*] $ty:ty { $($body:tt)* }) => {
        impl<$($g)*> $ty {
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

    (impl $ty:ty { $($body:tt)* }) => {
        $crate::wiring!(impl[] $ty { $($body)* });
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

/// A block's `#[hdl_gen] fn update` with its plain connections written as a table. The
/// `wires` section (`DST <= SRC;` as in [`wiring!`], `a[3].b` for an element of an array)
/// and the `wires for j in (RANGE) { .. }` sections (`a[j].b <= c[j];`) become
/// `DST.next = SRC.val();` statements ahead of the body, so rust-hdl's `hdl_gen` makes
/// `update()`, `connect()` and the Verilog from them as from hand-written statements.
/// `update` keeps the logic (muxes, expressions, FSMs); the table says what is only a wire.
/// A wire's source is an input of the block or an output of a sub-block, never a signal the
/// body assigns (the wires come first in the emitted `always` block, so nothing is read
/// before it is settled).
///
/// ```ignore
/// impl Logic for Top {
///     edgelearn_hdl::wired_update! {
///         wires {
///             inner.clock <= clock;
///             inner.data <= data;
///         }
///         wires for j in (0..4) {
///             copies[j] <= inner.words[j];
///         }
///         #[hdl_gen]
///         fn update(&mut self) {
///             self.out.next = self.inner.result.val() + 1;
///         }
///     }
/// }
/// ```
#[macro_export]
macro_rules! wired_update {
    // The sections are gathered one rule at a time (a rule that matched `wires` or the
    // attribute's `#` with one matcher would be ambiguous), then written out at once.
    (wires { $($w:tt)* } $($rest:tt)*) => {
        $crate::wired_update!(@gather [$($w)*] [] $($rest)*);
    };
    (@gather [$($w:tt)*] [$($l:tt)*] wires for $j:ident in ($($r:tt)*) { $($lw:tt)* }
        $($rest:tt)*) => {
        $crate::wired_update!(@gather [$($w)*] [$($l)* ($j ($($r)*) { $($lw)* })] $($rest)*);
    };
    (@gather
        [$( $($d:ident $([$di:tt])?).+ <= $($s:ident $([$si:tt])?).+ ; )*]
        [$( ($j:ident ($($r:tt)*) {
            $( $($ad:ident $([$adi:tt])?).+ <= $($as:ident $([$asi:tt])?).+ ; )*
        }) )*]
        $pound:tt $hdl_gen:tt
        fn update(&mut $me:ident) { $($body:tt)* }
    ) => {
        // `#[hdl_gen]` comes from the call, so that the functions it makes (`connect`,
        // `hdl`) take their `self` from the same place as the body's.
        $pound $hdl_gen
        fn update(&mut $me) {
            $( $me.$($d $([$di])?).+.next = $me.$($s $([$si])?).+.val(); )*
            $( for $j in $($r)* {
                $( $me.$($ad $([$adi])?).+.next = $me.$($as $([$asi])?).+.val(); )*
            } )*
            $($body)*
        }
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

    /// A block whose plain connections are a `wired_update!` table: a register behind the
    /// input, the words through, the register's output plus one out.
    #[derive(Clone, Debug, LogicBlock, Default)]
    struct Wired {
        clock: Signal<In, Clock>,
        data: Signal<In, Bits<8>>,
        words: [Signal<In, Bits<4>>; 4],
        out: Signal<Out, Bits<8>>,
        copies: [Signal<Out, Bits<4>>; 4],
        last: Signal<Out, Bits<4>>,
        data_q: DFF<Bits<8>>,
    }

    impl Logic for Wired {
        crate::wired_update! {
            wires {
                data_q.d <= data;
                last <= words[3];
            }
            wires for j in (0..4) {
                copies[j] <= words[j];
            }
            #[hdl_gen]
            fn update(&mut self) {
                clock!(self, clock, data_q);
                self.out.next = self.data_q.q.val() + 1;
            }
        }
    }

    /// The same with the register set up by `dff_setup!`: its hold, in the body, comes after
    /// the table's wire and discards it.
    #[derive(Clone, Debug, LogicBlock, Default)]
    struct HeldWire {
        clock: Signal<In, Clock>,
        data: Signal<In, Bits<8>>,
        out: Signal<Out, Bits<8>>,
        data_q: DFF<Bits<8>>,
    }

    impl Logic for HeldWire {
        crate::wired_update! {
            wires {
                data_q.d <= data;
                out <= data_q.q;
            }
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, data_q);
            }
        }
    }

    #[test]
    fn a_wired_update_table_makes_the_statements_ahead_of_the_body() {
        let mut w = Wired::default();
        w.connect_all();
        check_all(&w).unwrap();
        let v = crate::design::verilog_named("wired", &w).unwrap();
        let at = |s: &str| v.find(s).unwrap_or_else(|| panic!("no `{s}` in {v}"));
        assert!(
            at("data_q$d = data;") < at("out = data_q$q + 32'h1;"),
            "{v}"
        );
        assert!(at("last = words$3;") < at("out = data_q$q"), "{v}");
        assert!(v.contains("copies$2 = words$2;"), "{v}");
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<Wired>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut ep: Sim<Wired>| {
            let mut x = ep.init()?;
            x.data.next = 0x5a.into();
            x.words[1].next = 0x9.into();
            x.words[3].next = 0x4.into();
            wait_clock_true!(ep, clock, x);
            wait_clock_cycle!(ep, clock, x);
            sim_assert_eq!(ep, x.out.val(), 0x5b, x);
            sim_assert_eq!(ep, x.copies[1].val(), 0x9, x);
            sim_assert_eq!(ep, x.last.val(), 0x4, x);
            ep.done(x)
        });
        sim.run(Box::new(w), 100).unwrap();
    }

    #[test]
    fn a_wire_to_a_register_with_a_hold_is_an_error_naming_it() {
        let mut h = HeldWire::default();
        h.connect_all();
        let e = crate::design::verilog_named("held", &h)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("data_q$d = data_q$q;") && e.contains("module held"),
            "{e}"
        );
    }
}
