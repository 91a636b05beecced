"""`torch.fx.experimental`: only `symbolic_shapes`' public error type is modelled."""
