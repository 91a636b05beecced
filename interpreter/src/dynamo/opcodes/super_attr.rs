//! `super().name` (`LOAD_SUPER_ATTR`): the attribute found after the defining class in the
//! receiver's MRO, guarded where it was found.

use rustpython_vm::AsObject;

use super::super::bytecode::Instr;
use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::symbolic_convert::{Flow, Step, Tracer};
use super::super::variables::builder::{wrap, wrap_unguarded};
use super::super::variables::{Kind, Vt};

impl Tracer<'_> {
    /// `super().name` (`LOAD_SUPER_ATTR`, what the compiler emits for `super()` in a method): the
    /// attribute is looked up in the receiver's MRO after the
    /// defining class, and guarded at `type(self).__mro__[j].__dict__[name]`.
    pub(crate) fn load_super_attr(&mut self, ins: &Instr) -> Step {
        let vm = self.vm;
        let name = self.name(ins.arg >> 2)?;
        let load_method = ins.arg & 1 == 1;
        let zelf = self.pop()?;
        let class = self.pop()?;
        let sup = self.pop()?;
        let unsupported = |why: &str| {
            GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                format!("super().{name}: {why}"),
            )
        };
        let is_super = matches!(&sup.kind, Kind::Builtin(o, _) if o.is(vm.ctx.types.super_type));
        // Both forms (bit 1 of the argument) mean `super(class, self)` with the pushed class
        // and receiver: RustPython's zero-argument `super()` reads the same two from the frame.
        if !is_super {
            return Err(unsupported("super is shadowed"));
        }
        let cls = match &class.kind {
            Kind::Class(c) | Kind::Builtin(c, _) => c.clone(),
            _ => return Err(unsupported("the class is not known")),
        };
        let obj = match &zelf.kind {
            Kind::Object(o) | Kind::NNModule(o) => o.clone(),
            _ => return Err(unsupported("the receiver is not a user object")),
        };
        let mro = obj
            .class()
            .as_object()
            .get_attr("__mro__", vm)
            .map_err(|_| unsupported("no MRO"))?;
        let mro: Vec<rustpython_vm::PyObjectRef> = vm
            .extract_elements_with(&mro, Ok)
            .map_err(|_| unsupported("no MRO"))?;
        let start = mro
            .iter()
            .position(|c| c.is(&cls))
            .ok_or_else(|| unsupported("the class is not in the receiver's MRO"))?;
        let found = mro.iter().enumerate().skip(start + 1).find_map(|(j, c)| {
            let d = c.get_attr("__dict__", vm).ok()?;
            let v = d.get_item(name.as_str(), vm).ok()?;
            Some((j, v))
        });
        let Some((j, value)) = found else {
            return Err(unsupported("attribute not found"));
        };
        let src = zelf.source.as_ref().map(|s| {
            s.attr("__class__")
                .attr("__mro__")
                .item(super::super::source::Key::Int(j as i64))
                .attr("__dict__")
                .item(super::super::source::Key::Str(name.as_str().into()))
        });
        let wrap_value = |this: &mut Self, v: rustpython_vm::PyObjectRef| match &src {
            Some(s) => wrap(this.out, v, s.clone(), vm),
            None => wrap_unguarded(v, vm),
        };
        if value
            .downcast_ref::<rustpython_vm::builtins::PyFunction>()
            .is_some()
        {
            let f = wrap_value(self, value);
            self.push_bound(f, zelf, load_method);
            return Ok(Flow::Next);
        }
        let is_plain_data = value.class().as_object().get_attr("__get__", vm).is_err();
        if is_plain_data {
            let v = wrap_value(self, value);
            self.push(v);
            if load_method {
                self.push(Vt::new(Kind::Null));
            }
            return Ok(Flow::Next);
        }
        // `super().__init__()` reaching `object.__init__` (a class with no other base, as
        // `torch.distributions.Distribution`): the slot wrapper, called on the receiver alone
        // as a no-op (`calls.rs`).
        if name.as_str() == "__init__" && is_object_init(&value, vm) {
            self.push_bound(wrap_unguarded(value, vm), zelf, load_method);
            return Ok(Flow::Next);
        }
        Err(unsupported("descriptors other than plain functions"))
    }

    /// Pushes method `f` bound to `zelf`: `f, zelf` for the method-call form (`CALL` passes the
    /// receiver), else one bound method.
    fn push_bound(&mut self, f: Vt, zelf: Vt, load_method: bool) {
        if load_method {
            self.push(f);
            self.push(zelf);
        } else {
            self.push(Vt::new(Kind::BoundMethod(Box::new(f), Box::new(zelf))));
        }
    }
}

/// Whether `value` is `object.__init__`.
pub(crate) fn is_object_init(
    value: &rustpython_vm::PyObjectRef,
    vm: &rustpython_vm::VirtualMachine,
) -> bool {
    vm.ctx
        .types
        .object_type
        .as_object()
        .get_attr("__init__", vm)
        .is_ok_and(|f| f.is(value))
}
