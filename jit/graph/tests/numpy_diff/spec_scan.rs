//! Specs of the scans with indices and log-space scans: `cummax`, `cummin`, `logcumsumexp`
//! (references in `numpy_scan.py`).

use rynamo_graph::Op;

use crate::inputs::Domain;
use crate::spec::*;

/// A tensor and a valid dim. Small integers (as values of every dtype) make ties common, so the
/// later-index rule is exercised; edge cases add NaN, infinities and -0.0.
fn g_scan(c: &mut Ctx<'_>, dom: Domain) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    let x = c.t(&sh, dt, dom);
    let nd = x.ndim();
    vec![("self", t(x)), ("dim", i(c.dim(nd)))]
}
fn g_ext(c: &mut Ctx<'_>) -> Args {
    g_scan(c, Domain::Ints(-3, 3))
}
fn g_lcse(c: &mut Ctx<'_>) -> Args {
    g_scan(c, Domain::Real)
}

fn not_float_basis(i: &Info<'_>) -> bool {
    !i.basis().is_floating_point()
}

pub fn spec(op: Op) -> Option<Spec> {
    use Op::*;
    let sp = match op {
        Cummax => Spec::new(g_ext, "cumext(self, dim, True)")
            .cast(0)
            .out(arg0_rule)
            .extra(long_rule)
            .cases(30),
        Cummin => Spec::new(g_ext, "cumext(self, dim, False)")
            .cast(0)
            .out(arg0_rule)
            .extra(long_rule)
            .cases(30),
        Logcumsumexp => Spec::new(g_lcse, "lcse(self, dim)")
            .out(arg0_rule)
            .reject(not_float_basis)
            .scale("lcse_scale(self, dim)")
            .tol(2, 4.0),
        _ => return None,
    };
    Some(sp)
}
