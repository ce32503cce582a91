"""ptx-fragment-checker: machine-checked PTX mma fragment layouts."""

__version__ = "0.1.0"
