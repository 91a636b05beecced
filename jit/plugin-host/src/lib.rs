//! Loads backend plugins (libloading), checks their ABI, and adapts them to the Backend trait.
