//! The versioned C ABI between Rynamo and backend plugins. Depends on nothing.
