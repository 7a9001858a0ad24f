"""The full-text index: the only package that imports whoosh."""
