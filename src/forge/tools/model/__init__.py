"""`Tool`, the one canonical tool record, and every way of defining, checking and describing one.

The decorator and `Tool` (`forge.tools.model.tool`), the builder, records, the
definition linter and prompt text. Provider formats sit below (a `Tool` converts
itself with them); the store and the engine sit above.
"""
