"""Incremental recrawling after WebFountain (Edwards, McCurley, Tomlin 2001)."""
