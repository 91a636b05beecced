//! Loads and stores: constants, fast locals, cells, globals, attributes; and stack shuffles.

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::AsObject;

use super::super::bytecode::Instr;
use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::side_effects::SideEffect;
use super::super::source::Source;
use super::super::symbolic_convert::{Flow, GlobalsSource, Step, Tracer};
use super::super::variables::builder::{wrap, wrap_unguarded};
use super::super::variables::{Kind, Vt};

impl Tracer<'_> {
    pub(crate) fn load_const(&mut self, ins: &Instr) -> Step {
        let c = self
            .code
            .code
            .constants
            .get(ins.arg as usize)
            .map(|c| rustpython_vm::PyObjectRef::from(c.clone()))
            .ok_or_else(|| {
                GraphBreak::new(GraphBreakKind::UnsupportedConstruct, "bad constant index")
            })?;
        self.push(Vt::constant(c));
        Ok(Flow::Next)
    }

    pub(crate) fn load_small_int(&mut self, ins: &Instr) -> Step {
        self.push(Vt::constant(self.vm.ctx.new_int(ins.arg).into()));
        Ok(Flow::Next)
    }

    pub(crate) fn load_common_constant(&mut self, ins: &Instr) -> Step {
        // CPython 3.14: 0 AssertionError, 1 NotImplementedError, 2 tuple, 3 all, 4 any.
        let name = match ins.arg {
            0 => "AssertionError",
            1 => "NotImplementedError",
            2 => "tuple",
            3 => "all",
            4 => "any",
            _ => {
                return Err(GraphBreak::new(
                    GraphBreakKind::UnsupportedOpcode,
                    format!("LOAD_COMMON_CONSTANT {}", ins.arg),
                ));
            }
        };
        let obj = self
            .builtins
            .get_item(name, self.vm)
            .map_err(|_| GraphBreak::new(GraphBreakKind::UnsupportedOpcode, "missing builtin"))?;
        self.push(wrap_unguarded(obj, self.vm));
        Ok(Flow::Next)
    }

    fn local(&self, slot: u32) -> Result<Vt, GraphBreak> {
        self.locals
            .get(slot as usize)
            .cloned()
            .flatten()
            .ok_or_else(|| {
                let name = self
                    .slots
                    .names
                    .get(slot as usize)
                    .cloned()
                    .unwrap_or_default();
                GraphBreak::new(
                    GraphBreakKind::UnsupportedConstruct,
                    format!("local variable '{name}' referenced before assignment"),
                )
            })
    }

    fn set_local(&mut self, slot: u32, v: Option<Vt>) {
        if let Some(s) = self.locals.get_mut(slot as usize) {
            *s = v;
        }
    }

    pub(crate) fn load_fast(&mut self, ins: &Instr) -> Step {
        let v = self.local(ins.arg)?;
        // A cell slot read with LOAD_FAST (closure construction) yields the cell itself.
        self.push(v);
        Ok(Flow::Next)
    }

    pub(crate) fn load_fast_and_clear(&mut self, ins: &Instr) -> Step {
        // Saves a variable shadowed by an inlined comprehension: an unbound slot pushes NULL.
        let v = self
            .locals
            .get_mut(ins.arg as usize)
            .and_then(Option::take)
            .unwrap_or_else(|| Vt::new(Kind::Null));
        self.push(v);
        Ok(Flow::Next)
    }

    pub(crate) fn load_fast_load_fast(&mut self, ins: &Instr) -> Step {
        let a = self.local(ins.arg >> 4)?;
        let b = self.local(ins.arg & 15)?;
        self.push(a);
        self.push(b);
        Ok(Flow::Next)
    }

    pub(crate) fn store_fast(&mut self, ins: &Instr) -> Step {
        let v = self.pop()?;
        // Restoring a NULL saved by LOAD_FAST_AND_CLEAR leaves the slot unbound.
        let v = if v.is_null() { None } else { Some(v) };
        self.set_local(ins.arg, v);
        Ok(Flow::Next)
    }

    pub(crate) fn store_fast_load_fast(&mut self, ins: &Instr) -> Step {
        let v = self.pop()?;
        self.set_local(ins.arg >> 4, Some(v));
        let w = self.local(ins.arg & 15)?;
        self.push(w);
        Ok(Flow::Next)
    }

    pub(crate) fn store_fast_store_fast(&mut self, ins: &Instr) -> Step {
        let a = self.pop()?;
        self.set_local(ins.arg >> 4, Some(a));
        let b = self.pop()?;
        self.set_local(ins.arg & 15, Some(b));
        Ok(Flow::Next)
    }

    pub(crate) fn delete_fast(&mut self, ins: &Instr) -> Step {
        self.set_local(ins.arg, None);
        Ok(Flow::Next)
    }

    pub(crate) fn make_cell(&mut self, ins: &Instr) -> Step {
        // The frame's own cells are trace-local while the whole frame is traced: a symbolic cell
        // holding the slot's value (a parameter captured by a closure keeps its value).
        let cur = self.locals.get(ins.arg as usize).cloned().flatten();
        let cell = Rc::new(RefCell::new(cur));
        self.set_local(ins.arg, Some(Vt::new(Kind::Cell(cell))));
        Ok(Flow::Next)
    }

    pub(crate) fn load_deref(&mut self, ins: &Instr) -> Step {
        let v = self.local(ins.arg)?;
        let v = match &v.kind {
            Kind::Cell(c) => c.borrow().clone().ok_or_else(|| {
                GraphBreak::new(GraphBreakKind::UnsupportedConstruct, "empty closure cell")
            })?,
            _ => v,
        };
        self.push(v);
        Ok(Flow::Next)
    }

    pub(crate) fn store_deref(&mut self, ins: &Instr) -> Step {
        let v = self.pop()?;
        let slot = ins.arg as usize;
        let untrackable = || {
            GraphBreak::new(
                GraphBreakKind::UntrackableStore,
                "nonlocal store into a closure cell that outlives the frame",
            )
        };
        match self.locals.get(slot).cloned().flatten() {
            // A cell made during the trace: purely symbolic.
            Some(Vt {
                kind: Kind::Cell(c),
                source: None,
            }) => {
                *c.borrow_mut() = Some(v);
            }
            // A real closure cell (its contents are visible elsewhere): the store is a side
            // effect on the cell, replayed after the graph; every closure over the same cell in
            // this trace shares the symbolic cell, so later reads see the new value.
            Some(Vt {
                kind: Kind::Cell(c),
                source: Some(src),
            }) => {
                if src.is_unreachable_cell() {
                    return Err(untrackable());
                }
                *c.borrow_mut() = Some(v.clone());
                self.out.side_effects.push(SideEffect::StoreAttr {
                    target: src,
                    name: "cell_contents".into(),
                    value: v,
                });
            }
            _ => {
                let first_free = self.slots.names.len() - self.code.code.freevars.len();
                if self.depth == 0 && slot >= first_free {
                    return Err(untrackable());
                }
                // The compiled frame's own cell: while the whole frame is traced it is a local.
                self.set_local(ins.arg, Some(v));
            }
        }
        Ok(Flow::Next)
    }

    /// `DELETE_DEREF`: empties a cell (`del k` of a captured variable, or `nonlocal k; del k`).
    pub(crate) fn delete_deref(&mut self, ins: &Instr) -> Step {
        match self.locals.get(ins.arg as usize).cloned().flatten() {
            Some(Vt {
                kind: Kind::Cell(c),
                source,
            }) => {
                if c.borrow().is_none() {
                    return Err(GraphBreak::new(
                        GraphBreakKind::UnsupportedConstruct,
                        "del of an empty closure cell (NameError)",
                    ));
                }
                if let Some(src) = source {
                    if src.is_unreachable_cell() {
                        return Err(GraphBreak::new(
                            GraphBreakKind::UntrackableStore,
                            "del of a closure cell that outlives the frame",
                        ));
                    }
                    self.out.side_effects.push(SideEffect::DeleteAttr {
                        target: src,
                        name: "cell_contents".into(),
                    });
                }
                *c.borrow_mut() = None;
                Ok(Flow::Next)
            }
            _ => Err(GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                "DELETE_DEREF on a slot without a cell",
            )),
        }
    }

    pub(crate) fn name(&self, idx: u32) -> Result<String, GraphBreak> {
        self.code
            .code
            .names
            .get(idx as usize)
            .map(|n| n.to_string())
            .ok_or_else(|| GraphBreak::new(GraphBreakKind::UnsupportedConstruct, "bad name index"))
    }

    /// The tracker for global `name` of this frame's module (guarded by its source).
    pub(crate) fn global_vt(&mut self, name: &str) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        if matches!(self.globals_source, GlobalsSource::Frame)
            && let Some(v) = self.out.global_overlay.get(name)
        {
            // A global the trace deleted: eager raises NameError here.
            return v.clone().ok_or_else(|| {
                GraphBreak::new(
                    GraphBreakKind::UnsupportedConstruct,
                    format!("load of global '{name}' after `del` (NameError)"),
                )
            });
        }
        let value = match self.globals.get_item_opt(name, vm) {
            Ok(Some(v)) => Some(v),
            _ => self.builtins.get_item(name, vm).ok(),
        };
        let Some(value) = value else {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                format!("name '{name}' is not defined"),
            ));
        };
        let in_globals = matches!(self.globals.get_item_opt(name, vm), Ok(Some(_)));
        if !in_globals {
            // A builtin: trusted unless shadowed later, which the global's absence guards below
            // would need; Dynamo treats builtins as constants too.
            return Ok(wrap_unguarded(value, vm));
        }
        match &self.globals_source {
            GlobalsSource::Frame => {
                let src = Rc::new(Source::Global(name.into()));
                Ok(wrap(self.out, value, src, vm))
            }
            GlobalsSource::Dict(d) => {
                let src = d.item(super::super::source::Key::Str(name.into()));
                Ok(wrap(self.out, value, src, vm))
            }
            GlobalsSource::None => Ok(wrap_unguarded(value, vm)),
        }
    }

    pub(crate) fn load_global(&mut self, ins: &Instr) -> Step {
        let name = self.name(ins.arg >> 1)?;
        let v = self.global_vt(&name)?;
        self.push(v);
        if ins.arg & 1 == 1 {
            self.push(Vt::new(Kind::Null));
        }
        Ok(Flow::Next)
    }

    pub(crate) fn store_global(&mut self, ins: &Instr) -> Step {
        let name = self.name(ins.arg)?;
        let v = self.pop()?;
        if !matches!(self.globals_source, GlobalsSource::Frame) {
            return Err(GraphBreak::new(
                GraphBreakKind::UntrackableStore,
                format!("store to global '{name}' of another module"),
            ));
        }
        self.out.side_effects.push(SideEffect::StoreGlobal {
            name: name.as_str().into(),
            value: v.clone(),
        });
        // Later loads in this trace see the new value: shadow it in a trace-local overlay.
        self.out.global_overlay.insert(name, Some(v));
        Ok(Flow::Next)
    }

    /// `DELETE_GLOBAL`: `global g; del g`, replayed after the graph.
    pub(crate) fn delete_global(&mut self, ins: &Instr) -> Step {
        let name = self.name(ins.arg)?;
        let untrackable = |why: &str| {
            GraphBreak::new(
                GraphBreakKind::UntrackableStore,
                format!("del of global '{name}' {why}"),
            )
        };
        if !matches!(self.globals_source, GlobalsSource::Frame) {
            return Err(untrackable("of another module"));
        }
        let bound = match self.out.global_overlay.get(&name) {
            Some(v) => v.is_some(),
            None => self
                .globals
                .get_item_opt(name.as_str(), self.vm)
                .ok()
                .flatten()
                .is_some(),
        };
        if !bound {
            return Err(untrackable("that is not bound (NameError)"));
        }
        // The deletion depends on the global existing: guard that it does.
        self.global_vt(&name)?;
        self.out.side_effects.push(SideEffect::DeleteGlobal {
            name: name.as_str().into(),
        });
        self.out.global_overlay.insert(name, None);
        Ok(Flow::Next)
    }

    pub(crate) fn load_attr(&mut self, ins: &Instr) -> Step {
        let name = self.name(ins.arg >> 1)?;
        let obj = self.pop()?;
        let attr = self.get_attr(obj, &name)?;
        self.push(attr);
        if ins.arg & 1 == 1 {
            // Method-call form: CALL finds the receiver inside bound methods, so NULL here.
            self.push(Vt::new(Kind::Null));
        }
        Ok(Flow::Next)
    }

    pub(crate) fn store_attr(&mut self, ins: &Instr) -> Step {
        let name = self.name(ins.arg)?;
        let obj = self.pop()?;
        let value = self.pop()?;
        self.set_attr(obj, &name, Some(value))?;
        Ok(Flow::Next)
    }

    pub(crate) fn delete_attr(&mut self, ins: &Instr) -> Step {
        let name = self.name(ins.arg)?;
        let obj = self.pop()?;
        self.set_attr(obj, &name, None)?;
        Ok(Flow::Next)
    }

    /// `obj.name = value` (or `del obj.name` with `None`), as a replayed side effect.
    pub(crate) fn set_attr(
        &mut self,
        obj: Vt,
        name: &str,
        value: Option<Vt>,
    ) -> Result<(), GraphBreak> {
        if let (Kind::Object(o), None) = (&obj.kind, &obj.source)
            && let Some(info) = self
                .out
                .new_objects
                .get(&(o.as_object() as *const _ as usize))
                .cloned()
            && let Some(hook) = super::super::variables::user_defined::python_store_hook(
                &info.cls,
                value.is_none(),
                self.vm,
            )
        {
            // An object made in the trace whose class stores through Python code (a frozen
            // dataclass raises there; others end in `object.__setattr__`): that code, inlined.
            let mut args = vec![obj.clone(), Vt::constant(self.vm.ctx.new_str(name).into())];
            args.extend(value);
            self.call_vt(wrap_unguarded(hook, self.vm), args, Vec::new())?;
            return Ok(());
        }
        if let (Kind::NNModule(o), Some(src)) = (&obj.kind, &obj.source) {
            self.guard_module_registries(o, src, name);
        }
        if let Kind::Object(o) | Kind::NNModule(o) = &obj.kind {
            self.check_plain_store(o, &obj, name, value.is_none())?;
        }
        if let (Kind::NNModule(o), Some(v)) = (&obj.kind, &value)
            && !self.module_store_is_plain(o, name, v)
        {
            return Err(GraphBreak::new(
                GraphBreakKind::UntrackableStore,
                format!(
                    "STORE_ATTR {name} on {}: nn.Module.__setattr__ files this value into its _parameters, _buffers or _modules",
                    obj.describe()
                ),
            ));
        }
        if let (Kind::Object(o), None) = (&obj.kind, &obj.source)
            && self
                .out
                .new_objects
                .contains_key(&(o.as_object() as *const _ as usize))
        {
            // An object made in the trace: its attributes are rebuilt with it, not replayed.
            self.out
                .side_effects
                .set_attr(o.as_object(), name, value.clone());
            return Ok(());
        }
        if let (Kind::Tensor(_), Some(src), "grad", Some(v)) =
            (&obj.kind, &obj.source, name, &value)
        {
            return self.store_grad(src.clone(), v.clone());
        }
        let target = match (&obj.kind, &obj.source) {
            (Kind::NNModule(o) | Kind::Object(o), Some(src)) => (o.clone(), src.clone()),
            _ => {
                return Err(GraphBreak::new(
                    GraphBreakKind::UntrackableStore,
                    format!("STORE_ATTR {name} on {}", obj.describe()),
                ));
            }
        };
        let (o, src) = target;
        self.out
            .side_effects
            .set_attr(o.as_object(), name, value.clone());
        self.out.side_effects.push(match value {
            Some(value) => SideEffect::StoreAttr {
                target: src,
                name: name.into(),
                value,
            },
            None => SideEffect::DeleteAttr {
                target: src,
                name: name.into(),
            },
        });
        Ok(())
    }

    /// `p.grad = value` on a tensor from the frame (an optimizer's `zero_grad`): `None`, or a
    /// tensor of the parameter's dtype and shape (what eager's setter accepts), replayed on the
    /// real tensor after the graph; later reads in the trace see the new value.
    fn store_grad(&mut self, src: Rc<Source>, value: Vt) -> Result<(), GraphBreak> {
        let vm = self.vm;
        let unsupported = |why: &str| {
            GraphBreak::new(
                GraphBreakKind::UntrackableStore,
                format!("STORE_ATTR grad on {src}: {why}"),
            )
        };
        let real = src
            .eval(&self.out.frame, vm)
            .map_err(|_| unsupported("the tensor cannot be read"))?;
        let param = super::super::bridge::tensor_meta(&real)
            .ok_or_else(|| unsupported("not a tensor"))?
            .0;
        let fits = match (&value.kind, value.as_const()) {
            (_, Some(c)) => vm.is_none(c),
            (Kind::Tensor(t), _) => t.meta().dtype == param.dtype && t.meta().shape == param.shape,
            _ => false,
        };
        if !fits {
            return Err(unsupported(
                "only None or a gradient of the tensor's dtype and shape",
            ));
        }
        self.out
            .side_effects
            .set_attr(real.as_object(), "grad", Some(value.clone()));
        self.out.side_effects.push(SideEffect::StoreAttr {
            target: src,
            name: "grad".into(),
            value,
        });
        Ok(())
    }

    /// `object.__setattr__(obj, name, value)` / `object.__delattr__(obj, name)` on an object made
    /// in the trace: the plain store, whatever the class's own hook (how a frozen dataclass's
    /// `__init__` sets its fields). Other targets are not modelled.
    pub(crate) fn object_setattr(&mut self, args: &[Vt], delete: bool) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let bad = || {
            GraphBreak::new(
                GraphBreakKind::UntrackableStore,
                "object.__setattr__ on an object the trace did not make",
            )
        };
        let (obj, name, value) = match (args, delete) {
            ([o, n], true) => (o, n, None),
            ([o, n, v], false) => (o, n, Some(v.clone())),
            _ => return Err(bad()),
        };
        let name = name
            .as_const()
            .and_then(|c| {
                c.downcast_ref::<rustpython_vm::builtins::PyStr>()
                    .map(|s| s.to_string())
            })
            .ok_or_else(bad)?;
        let Kind::Object(o) = &obj.kind else {
            return Err(bad());
        };
        if obj.source.is_some()
            || !self
                .out
                .new_objects
                .contains_key(&(o.as_object() as *const _ as usize))
        {
            return Err(bad());
        }
        if delete && self.get_attr(obj.clone(), &name).is_err() {
            return Err(bad());
        }
        self.out.side_effects.set_attr(o.as_object(), &name, value);
        Ok(Vt::constant(vm.ctx.none()))
    }

    /// Whether `module.name = value` is what `nn.Module.__setattr__` stores as a plain instance
    /// attribute: not a parameter, buffer or module value, and not a name its `_parameters`,
    /// `_buffers` or `_modules` holds (those stores and deletes update the registries, which
    /// the trace's replay of a plain store would not, and which traced reads of those dicts
    /// would then contradict).
    /// Pins whether `name` is in the module's `_parameters`, `_buffers` and `_modules` (a store
    /// files the value there or into the instance dict): the module itself is guarded by type
    /// only, so another instance must register the same way to reuse the entry.
    fn guard_module_registries(
        &mut self,
        m: &rustpython_vm::PyObjectRef,
        src: &std::rc::Rc<super::super::source::Source>,
        name: &str,
    ) {
        let vm = self.vm;
        for reg in ["_parameters", "_buffers", "_modules"] {
            let Ok(d) = m.get_attr(reg, vm) else {
                continue;
            };
            let present = d.get_item(name, vm).is_ok();
            self.out.guards.add(
                &src.attr(reg),
                super::super::guards::Check::DictContains {
                    key: vm.ctx.new_str(name).into(),
                    key_text: format!("{name:?}"),
                    present,
                },
            );
        }
    }

    fn module_store_is_plain(
        &mut self,
        m: &rustpython_vm::PyObjectRef,
        name: &str,
        value: &Vt,
    ) -> bool {
        let vm = self.vm;
        let registered_class = match &value.kind {
            Kind::NNModule(_) => true,
            // A tensor made in the trace is a plain `torch.Tensor`; one from the frame may be a
            // Parameter or Buffer.
            Kind::Tensor(_) => match &value.source {
                None => false,
                Some(src) => src.eval(&self.out.frame, vm).is_ok_and(|real| {
                    !super::super::bridge::tensor_class(vm).is_some_and(|t| real.class().is(&t))
                }),
            },
            _ => false,
        };
        if registered_class {
            return false;
        }
        !module_registers(m, name, vm)
    }

    /// Breaks the graph unless `obj.name = value` (`del obj.name` with `delete`) is a plain
    /// instance-dict store that cannot fail: the store is replayed after the graph ran, when the
    /// frame's other side effects have happened, so one that runs code (a property setter, a
    /// custom `__setattr__`) or raises (a property without a setter, `__slots__`, a missing
    /// attribute to delete) must happen in Python, at its place, as in eager. `nn.Module`'s own
    /// `__setattr__` / `__delattr__` are plain here: they only file values into its dicts.
    fn check_plain_store(
        &mut self,
        o: &rustpython_vm::PyObjectRef,
        obj: &Vt,
        name: &str,
        delete: bool,
    ) -> Result<(), GraphBreak> {
        let vm = self.vm;
        let cls = o.class();
        let hook = if delete { "__delattr__" } else { "__setattr__" };
        let object_hook = vm.ctx.types.object_type.as_object().get_attr(hook, vm).ok();
        let standard_hook = matches!(obj.kind, Kind::NNModule(_))
            || match (cls.as_object().get_attr(hook, vm).ok(), object_hook) {
                (Some(a), Some(b)) => a.is(&b),
                _ => false,
            };
        let py_name = vm.ctx.new_str(name);
        // A data descriptor on the class (a property, a slot) takes the store instead of the
        // instance dict. Storing into a slot cannot fail (deleting an unset one can).
        let desc = cls.lookup_ref(&py_name, vm);
        let slot_store = !delete
            && desc
                .as_ref()
                .is_some_and(|d| d.class().is(vm.ctx.types.member_descriptor_type));
        let descriptor = !slot_store
            && desc.is_some_and(|d| {
                let dcls = d.class();
                dcls.lookup_ref(&vm.ctx.new_str("__set__"), vm).is_some()
                    || dcls.lookup_ref(&vm.ctx.new_str("__delete__"), vm).is_some()
            });
        let has_dict = slot_store || o.dict().is_some();
        // nn.Module's `__delattr__` removes registered names from its registries instead.
        let module_registry =
            delete && matches!(obj.kind, Kind::NNModule(_)) && module_registers(o, name, vm);
        let plain = standard_hook && !descriptor && has_dict && !module_registry;
        // `del obj.name` raises unless the attribute is there: stored earlier in this trace, or
        // in the instance dict now (read through `get_attr`, which guards it).
        let deletable = !delete
            || match self.out.side_effects.get_attr(o.as_object(), name) {
                Some(stored) => stored.is_some(),
                None => {
                    o.dict().is_some_and(|d| d.contains_key(name, vm))
                        && self.get_attr(obj.clone(), name).is_ok()
                }
            };
        if plain && deletable {
            return Ok(());
        }
        let what = if delete { "DELETE_ATTR" } else { "STORE_ATTR" };
        Err(GraphBreak::new(
            GraphBreakKind::UntrackableStore,
            format!(
                "{what} {name} on {}: {}",
                obj.describe(),
                if !standard_hook {
                    format!("its class defines {hook}")
                } else if descriptor {
                    "its class has a data descriptor (property or slot) for it".to_owned()
                } else if !has_dict {
                    "it has no instance __dict__".to_owned()
                } else {
                    "the attribute does not exist".to_owned()
                }
            ),
        ))
    }

    pub(crate) fn copy(&mut self, ins: &Instr) -> Step {
        let n = ins.arg as usize;
        let v = self
            .stack
            .len()
            .checked_sub(n)
            .and_then(|i| self.stack.get(i))
            .cloned()
            .ok_or_else(|| {
                GraphBreak::new(GraphBreakKind::UnsupportedConstruct, "COPY out of range")
            })?;
        self.push(v);
        Ok(Flow::Next)
    }

    pub(crate) fn swap(&mut self, ins: &Instr) -> Step {
        let n = ins.arg as usize;
        let len = self.stack.len();
        if n < 2 || n > len {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                "SWAP out of range",
            ));
        }
        self.stack.swap(len - 1, len - n);
        Ok(Flow::Next)
    }
}

/// Whether `name` is in the module's `_parameters`, `_buffers` or `_modules`.
fn module_registers(
    m: &rustpython_vm::PyObjectRef,
    name: &str,
    vm: &rustpython_vm::VirtualMachine,
) -> bool {
    super::super::bridge::module_registry(m, name, vm).is_some()
}
