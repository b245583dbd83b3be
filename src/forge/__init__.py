"""forge-tools: define LLM tools once, use them with every provider."""

__version__ = "0.1.0"
