"""The values every layer passes around: categories, metadata, parameters, context, calls, results.

Plain data with no behaviour beyond checking itself; nothing here imports a
tool, a provider format or the engine.
"""
