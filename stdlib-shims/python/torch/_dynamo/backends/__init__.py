"""Dynamo backends: the registry and the debugging backends."""
