"""fakeprop: symbolic shape inference as PyTorch's FakeTensor and ShapeEnv do it, without PyTorch.

    import fakeprop
    report = fakeprop.infer("model.onnx", dynamic="L['x']:0")
    report = fakeprop.propagate(torch.export.export(model, (x,), dynamic_shapes=...))

The package and the ``fakeprop`` CLI share one C++ library; a report here is
the CLI's ``--json`` report as Python objects.
"""
from .api import CheckResult, check, infer, plan, propagate
from .errors import ConstraintViolationError, Error, InputError, InternalError, RunError, StrictModeError
from .graph_export import export_graph

__version__ = "0.1.0"
__all__ = [
    "infer", "check", "CheckResult",
    "plan", "propagate", "export_graph",
    "Error", "InputError", "InternalError", "RunError", "ConstraintViolationError", "StrictModeError",
]
