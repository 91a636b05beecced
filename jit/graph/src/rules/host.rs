//! `host_call`: meta from the callee's declared outputs, eager by calling it.

use crate::def::op;
use crate::host;

op! {
    host_call = "host_call(Tensor[] inputs, int callee) -> Tensor[]", Extern, [HOST];
    meta(_, a) { Ok(host::get(a.callee)?.output_metas().to_vec()) }
    eager(_, a) {
        let c = host::get(a.callee)?;
        let inputs: Vec<rynamo_tensor::Tensor> = a.inputs.iter().map(|t| (*t).clone()).collect();
        let out = c.call(&inputs)?;
        let want = c.output_metas();
        if out.len() != want.len()
            || out
                .iter()
                .zip(want)
                .any(|(t, m)| t.dtype() != m.dtype || t.shape() != m.shape.as_slice())
        {
            return Err(crate::Error::BadArgs(format!(
                "host_call {}: outputs changed dtype or shape since tracing",
                c.name()
            )));
        }
        Ok(out)
    }
    with .sample(crate::samples::host_call)
}
