//! The rynamo interpreter.
