//! Backend and Executable traits, the backend registry, and the eager graph interpreter.
