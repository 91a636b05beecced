//! Python values of constant trackers: lists and dicts that hold themselves convert to new
//! objects that hold themselves (the conversion used to recurse forever).

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::AsObject;

use crate::dynamo::variables::python_value::python_values;
use crate::dynamo::variables::{DictVar, Kind, ListVar, Vt};

#[test]
fn a_list_that_holds_itself_converts_to_one_that_does() {
    let interp = crate::Interpreter::builder().build();
    interp
        .with_vm(|vm, _scope| {
            let list = Rc::new(RefCell::new(ListVar::default()));
            let vt = Vt::new(Kind::List(list.clone()));
            list.borrow_mut().items = vec![Vt::constant(vm.ctx.new_int(1).into()), vt.clone()];
            let values = python_values(&[vt.clone(), vt], vm).expect("constants");
            assert_eq!(values[0].repr(vm)?.to_string(), "[1, [...]]");
            // One tracker is one object, also across the values converted together.
            assert!(values[0].is(&values[1]));
            let list = values[0]
                .downcast_ref::<rustpython_vm::builtins::PyList>()
                .expect("a list");
            assert!(list.borrow_vec()[1].is(&values[0]));
            Ok(())
        })
        .expect("runs");
}

#[test]
fn a_dict_that_holds_itself_converts_to_one_that_does() {
    let interp = crate::Interpreter::builder().build();
    interp
        .with_vm(|vm, _scope| {
            let dict = Rc::new(RefCell::new(DictVar::default()));
            let vt = Vt::new(Kind::Dict(dict.clone()));
            dict.borrow_mut().items = vec![(vm.ctx.new_str("me").into(), vt.clone())];
            let values = python_values(&[vt], vm).expect("constants");
            assert_eq!(values[0].repr(vm)?.to_string(), "{'me': {...}}");
            Ok(())
        })
        .expect("runs");
}
