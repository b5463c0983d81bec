"""The exceptions fakeprop raises.

Each carries the one-line text the CLI prints after ``fakeprop: error:``
(the file and, where there is one, the node), so a message seen in CI reads
the same from Python.
"""


class Error(Exception):
    """Base of every fakeprop error."""


class InputError(Error):
    """Bad usage or unreadable input: the CLI's exit code 2."""


class InternalError(Error):
    """A fault in fakeprop itself (the CLI's exit code 3); please report it."""


class RunError(Error):
    """A run that finished but whose result the caller asked to reject (the CLI's exit code 1).

    ``report`` holds the whole report, as :func:`fakeprop.infer` would return it.
    """

    def __init__(self, message, report):
        super().__init__(message)
        self.report = report


class ConstraintViolationError(RunError):
    """A dim marked dynamic (``Dim``, ``Dim.DYNAMIC``, ``--mark ...=dynamic``) was specialized.

    PyTorch raises its own ``ConstraintViolationError`` for the same program.
    """


class StrictModeError(RunError):
    """``strict=True`` and a node hit a data-dependent error or has no rule."""
