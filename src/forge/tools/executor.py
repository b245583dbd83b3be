"""`ToolExecutor` at seed 004's path; it lives in `forge.tools.execution.executor`."""

from forge.tools.execution.executor import ToolExecutor

__all__ = ["ToolExecutor"]
