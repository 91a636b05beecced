"""``torch._dynamo``: the frame converter and its Python API live here (Dynamo task)."""
