//! The Dynamo core: symbolic execution of Python bytecode, graph capture, guards, the per-code
//! cache, graph breaks and resume functions. Module names follow `torch/_dynamo` so its docs map
//! onto ours.
//!
//! ```text
//!   eval_frame hook ──> convert_frame (cache lookup: guards) ──hit──> compiled entry
//!                            │ miss
//!                            └─> symbolic_convert::Tracer (opcodes/*, calls, builtins,
//!                                  tensor_ops, attribute; variables/builder wraps frame values
//!                                  and adds guards) ──> output_graph (graph IR + side effects)
//!                                ──> compile (recipes, DCE, backend) ──> cache entry
//! ```

pub mod aot;
pub mod aot_module;
pub mod attribute;
pub mod autocast;
pub mod bind_args;
pub mod bridge;
pub mod builtins;
pub mod builtins_reduce;
pub mod bytecode;
pub mod bytecode_analysis;
pub mod cache;
pub mod calls;
pub mod codegen;
pub mod compile;
pub mod config;
pub mod container_methods;
pub mod container_proxy;
pub mod convert_frame;
pub mod debug_dir;
pub mod exc;
pub mod frame_dict;
pub mod frame_logs;
pub mod fx;
pub mod fx_sym_shapes;
pub mod graph_break;
pub mod guard_attr;
pub mod guard_check;
pub mod guards;
pub mod host_call;
pub mod inplace;
pub mod inspect_signature;
pub mod layout_queries;
pub mod logs;
pub mod nn_module_new;
pub mod nonstrict;
mod opcodes;
pub mod output_graph;
pub mod per_shape;
pub mod polyfills;
pub mod py_module;
pub mod reconstruct;
mod reconstruct_build;
pub mod replay;
pub mod resume;
pub mod shape_check;
pub mod shape_env;
pub mod side_effects;
pub mod source;
pub mod stats;
pub mod stdlib_classes;
pub mod sym;
pub mod sym_float;
pub mod sym_guard;
pub mod sym_trace;
pub mod symbolic_convert;
pub mod tensor_args;
pub mod tensor_index;
pub mod tensor_literal;
pub mod tensor_ops;
pub mod trace_structured;
pub mod variables;

#[cfg(test)]
mod tests;
