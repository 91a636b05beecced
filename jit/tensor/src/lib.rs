//! Strided CPU tensors: dtypes, shared storage, views, broadcasting, type promotion and eager kernels.
