"""The table companion: game engines, the table service and the `companion` command."""

__version__ = "0.1.0"
