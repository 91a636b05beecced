//! Integration tests: Python scripts with expected output, differential and conformance suites.
